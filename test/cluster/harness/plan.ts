// What each cluster of the loopback fleet gets before its processes start: a directory, its PKI
// (CA, serving, admin, service-account and front-proxy certificates), ports, an admin kubeconfig
// and an etcd prefix; plus the Karmada API's extra serving certificates (KarmadaPki).
import * as fs from "fs";
import * as path from "path";
import { CaFiles, CertFiles, CertificateFactory, SigningKeyFiles } from "./certs";
import { AGGREGATED_APISERVER_DNS, KARMADA_SYSTEM_NAMESPACE } from "./karmada-objects";
import { writeKubeconfig } from "./kubeconfig";
import { PUBLISHED_ADDRESS } from "./load-balancer";
import { LOOPBACK, PortAllocator } from "./ports";

export type ClusterRole = "host" | "member" | "karmada";

export interface ClusterPki {
    dir: string;
    ca: CaFiles;
    serving: CertFiles;
    admin: CertFiles;
    sa: SigningKeyFiles;
    /** The aggregation layer's client identity (as kubeadm and kind set up). */
    frontProxyCa: CaFiles;
    frontProxyClient: CertFiles;
}

/** Serving certificates of the Karmada extension servers, signed by the Karmada API's CA. */
export interface KarmadaPki {
    aggregated: CertFiles;
    webhook: CertFiles;
}

/** What each cluster gets before its processes start. */
export interface ClusterPlan {
    name: string;
    role: ClusterRole;
    dir: string;
    pki: ClusterPki;
    port: number;
    kcmPort: number;
    kubeconfig: string;
    etcdPrefix: string;
}

/** Ports of the Karmada processes beside the Karmada API server. */
export interface ExtensionPorts {
    agg: number;
    webhook: number;
    kcmHealth: number;
    schedHealth: number;
}

export const read = (f: string): string => fs.readFileSync(f, "utf8");

/** TLS options of a client that presents the cluster's admin certificate and trusts `caPem`. */
export function adminTls(p: ClusterPlan, caPem: string): { ca: string; cert: string; key: string } {
    return { ca: caPem, cert: read(p.pki.admin.cert), key: read(p.pki.admin.key) };
}

/** Plans the host, the members and the Karmada API (in that order), all under `root`, and the Karmada PKI. */
export async function planClusters(
    root: string,
    hostName: string,
    memberNames: string[],
    ports: PortAllocator,
    /** More addresses for the Karmada API's certificate (where real nodes' pods reach it). */
    karmadaAddresses: string[] = [],
): Promise<readonly [ClusterPlan[], KarmadaPki]> {
    const clusterNames: [string, ClusterRole][] = [[hostName, "host"], ...memberNames.map((n): [string, ClusterRole] => [n, "member"]), ["karmada", "karmada"]];
    const plans = await Promise.all(clusterNames.map(([name, role]) => planCluster(root, name, role, ports, role === "karmada" ? karmadaAddresses : [])));
    const kp = await planKarmadaPki(plans.find((p) => p.role === "karmada")!);
    return [plans, kp] as const;
}

/**
 * Certificates, two ports (API server, controller manager) and an admin kubeconfig in `<root>/<name>`.
 * `servingIps`: more addresses for the API server's certificate (a real-node cluster's, where nodes and pods dial it).
 */
export async function planCluster(root: string, name: string, role: ClusterRole, ports: PortAllocator, servingIps: string[] = []): Promise<ClusterPlan> {
    const dir = path.join(root, name);
    const certs = new CertificateFactory(path.join(dir, "pki"));
    const [ca, frontProxyCa] = await Promise.all([
        certs.ca("ca", `kamino-harness-${name}-ca`),
        certs.ca("front-proxy-ca", `kamino-harness-${name}-front-proxy-ca`),
    ]);
    const [serving, admin, sa, frontProxyClient] = await Promise.all([
        certs.leaf("apiserver", ca, {
            commonName: `kamino-harness-${name}-apiserver`,
            dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
            // Karmada is also reached through its load balancer (load-balancer.ts), as `certs.auto.hosts` would name it.
            ipAddresses: [...(role === "karmada" ? [LOOPBACK, PUBLISHED_ADDRESS] : [LOOPBACK]), ...servingIps],
            usages: ["serverAuth"],
        }),
        certs.leaf("admin", ca, { commonName: "kamino-admin", organizations: ["system:masters"], usages: ["clientAuth"] }),
        certs.signingKey("sa"),
        certs.leaf("front-proxy-client", frontProxyCa, { commonName: "front-proxy-client", usages: ["clientAuth"] }),
    ]);
    const port = await ports.next();
    const kcmPort = await ports.next();
    const kubeconfig = writeKubeconfig(path.join(dir, "admin.kubeconfig"), {
        name: role === "karmada" ? "karmada-apiserver" : name,
        server: `https://${LOOPBACK}:${port}`,
        caPem: read(ca.cert),
        certPem: read(admin.cert),
        keyPem: read(admin.key),
    });
    return {
        name,
        role,
        dir,
        pki: { dir: path.join(dir, "pki"), ca, serving, admin, sa, frontProxyCa, frontProxyClient },
        port,
        kcmPort,
        kubeconfig,
        etcdPrefix: `/kamino/${name}`,
    };
}

/** Serving certificates of karmada-aggregated-apiserver and karmada-webhook, in the Karmada API's pki dir. */
export async function planKarmadaPki(plan: ClusterPlan): Promise<KarmadaPki> {
    const certs = new CertificateFactory(plan.pki.dir);
    const [aggregated, webhook] = await Promise.all([
        certs.leaf("aggregated-apiserver", plan.pki.ca, {
            commonName: "karmada-aggregated-apiserver",
            dnsNames: [AGGREGATED_APISERVER_DNS, "localhost"],
            ipAddresses: [LOOPBACK],
            usages: ["serverAuth"],
        }),
        certs.leaf("webhook", plan.pki.ca, {
            commonName: "karmada-webhook",
            dnsNames: [`karmada-webhook.${KARMADA_SYSTEM_NAMESPACE}.svc`, "localhost"],
            ipAddresses: [LOOPBACK],
            usages: ["serverAuth"],
        }),
    ]);
    return { aggregated, webhook };
}
