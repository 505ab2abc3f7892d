// Karmada's three-member etcd off kind: the certificates (who is trusted as what, how long, and
// renewal by the same CA) and the members' command line and disruption budget. That the members
// really bootstrap and keep a quorum is test/cluster/karmada-etcd.test.ts, with the etcd binary.
import { X509Certificate } from "crypto";
import { etcdCertificatesProvider, ETCD_CA_YEARS, ETCD_CERT_YEARS, issueEtcdCertificates } from "../../components/karmada/control-plane/etcd-certificates";
import * as k8s from "@pulumi/kubernetes";
import {
    etcdCertificateHosts,
    etcdClusterNames,
    etcdCommand,
    etcdDisruptionBudgetSpec,
    etcdMembersChange,
    ETCD_CLIENT_CN,
    ETCD_PEER_CN,
} from "../../components/karmada/control-plane/etcd-cluster";
import { KarmadaEtcd } from "../../components/karmada/control-plane/karmada-etcd";
import { fakeKubeconfig, MockRun } from "../support/mocks";

const n = etcdClusterNames("karmada-system");
const hosts = etcdCertificateHosts(n);
const YEAR_MS = 365 * 24 * 3600 * 1000;
const years = (c: X509Certificate) => Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / YEAR_MS);
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

describe("the certificates", () => {
    const set = issueEtcdCertificates(hosts, new Date());
    const ca = new X509Certificate(set.caCrt);
    const member = new X509Certificate(set.memberCrt);
    const client = new X509Certificate(set.clientCrt);

    test("a CA of this etcd's own, for ten years", () => {
        expect(ca.ca).toBe(true);
        expect(years(ca)).toBe(ETCD_CA_YEARS);
    });

    test("the members' certificate: server and peer, for every member and the client Service, signed by the CA", () => {
        expect(member.subject).toBe(`CN=${ETCD_PEER_CN}`);
        expect(member.subjectAltName).toBe(hosts.map((h) => (h === "127.0.0.1" ? `IP Address:${h}` : `DNS:${h}`)).join(", "));
        expect(member.checkHost(n.memberHost("karmada-etcd-2"))).toBe(`*.karmada-etcd.karmada-system.svc.cluster.local`);
        expect(member.checkHost(n.clientHost)).toBe(n.clientHost);
        expect(member.checkHost("karmada-etcd-0.elsewhere.svc.cluster.local")).toBeUndefined();
        expect(member.keyUsage.sort()).toEqual([SERVER_AUTH, CLIENT_AUTH]);
        expect(member.verify(ca.publicKey)).toBe(true);
        expect(years(member)).toBe(ETCD_CERT_YEARS);
    });

    test("the apiservers' certificate: a client only, under another name than a peer's", () => {
        expect(client.subject).toBe(`CN=${ETCD_CLIENT_CN}`);
        expect(client.subjectAltName).toBeUndefined();
        expect(client.keyUsage).toEqual([CLIENT_AUTH]);
        expect(client.verify(ca.publicKey)).toBe(true);
    });

    test("the keys are the certificates' own", () => {
        const { createPrivateKey, createPublicKey } = jest.requireActual<typeof import("crypto")>("crypto");
        const pub = (pem: string) => createPublicKey(createPrivateKey(pem)).export({ type: "spki", format: "pem" });
        expect(pub(set.memberKey)).toBe(member.publicKey.export({ type: "spki", format: "pem" }));
        expect(pub(set.clientKey)).toBe(client.publicKey.export({ type: "spki", format: "pem" }));
        expect(pub(set.caKey)).toBe(ca.publicKey.export({ type: "spki", format: "pem" }));
    });
});

describe("renewal", () => {
    const issued = { hosts, ...issueEtcdCertificates(hosts, new Date()) };
    const diff = (olds: typeof issued, news: { hosts: string[] }) => etcdCertificatesProvider.diff!("id", olds, news);

    test("a fresh set with the same names: no change", async () => {
        expect(await diff(issued, { hosts })).toMatchObject({ changes: false, replaces: [] });
    });

    test("in the last third of their life, or for other names: signed again in place, never replaced", async () => {
        const aged = issueEtcdCertificates(hosts, new Date(Date.now() - 2.1 * YEAR_MS), issued);
        expect(await diff({ hosts, ...aged }, { hosts })).toMatchObject({ changes: true, replaces: [] });
        expect(await diff(issued, { hosts: [...hosts, "extra.example"] })).toMatchObject({ changes: true, replaces: [] });
    });

    test("an update keeps the CA, so members and apiservers trust the new certificates and the old ones alike", async () => {
        const { outs } = await etcdCertificatesProvider.update!("id", issued, { hosts });
        expect(outs.caCrt).toBe(issued.caCrt);
        expect(outs.caKey).toBe(issued.caKey);
        expect(outs.memberCrt).not.toBe(issued.memberCrt);
        expect(outs.memberKey).not.toBe(issued.memberKey);
        expect(new X509Certificate(outs.memberCrt).verify(new X509Certificate(issued.caCrt).publicKey)).toBe(true);
        expect(new X509Certificate(outs.clientCrt).verify(new X509Certificate(issued.caCrt).publicKey)).toBe(true);
    });
});

describe("the members", () => {
    const flags = Object.fromEntries(
        etcdCommand(n)
            .slice(1)
            .map((f) => f.replace(/^--/, "").split(/=(.*)/s).slice(0, 2)),
    );

    test("each advertises its stable name to its peers, which the chart's etcd leaves out", () => {
        expect(flags["initial-advertise-peer-urls"]).toBe("https://$(POD_NAME).karmada-etcd.karmada-system.svc.cluster.local:2380");
        expect(flags["initial-cluster"].split(",")).toEqual(
            [0, 1, 2].map((i) => `karmada-etcd-${i}=https://karmada-etcd-${i}.karmada-etcd.karmada-system.svc.cluster.local:2380`),
        );
        expect(flags.name).toBe("$(POD_NAME)");
    });

    test("TLS with client certificates on both ports; peers by the peer name", () => {
        expect(flags).toMatchObject({ "client-cert-auth": "true", "peer-client-cert-auth": "true", "peer-cert-allowed-cn": ETCD_PEER_CN });
        expect(Object.entries(flags).filter(([k, v]) => k.endsWith("-urls") && k !== "listen-metrics-urls" && !String(v).startsWith("https://"))).toEqual([]);
    });

    test("a drain takes at most the one member that a quorum can spare", () => {
        expect(etcdDisruptionBudgetSpec(n).minAvailable).toBe(2);
        expect(etcdDisruptionBudgetSpec(etcdClusterNames("k", 5)).minAvailable).toBe(3);
    });
});

describe("a member count the running etcd cannot take", () => {
    test("refused with the key, the running count and both fixes; a new etcd or the same count passes", () => {
        expect(etcdMembersChange(5, 3)).toMatch(
            /^kamino:karmada\.etcd\.members = 5: Karmada's etcd runs with 3 members.*; fix: set it back to 3, or move to 5 by a snapshot restored into 5 members/,
        );
        expect(etcdMembersChange(3, undefined)).toBeUndefined();
        expect(etcdMembersChange(3, 3)).toBeUndefined();
    });

    // The refusal itself ends the run from inside the registration, which the mocks cannot catch: it is
    // proven with the real engine and API server (test/cluster/karmada-etcd.test.ts).
    /** Registers a KarmadaEtcd of `members` over a host whose etcd runs with `running`; what the mocks saw, and the run's error. */
    async function etcdOver(members: number, running: number | undefined | Error) {
        const run = new MockRun(false);
        await run.install();
        const asked: string[] = [];
        new KarmadaEtcd("karmada-etcd", {
            hostProvider: new k8s.Provider("hub", { kubeconfig: fakeKubeconfig("https://hub:6443") }),
            hostKubeconfig: fakeKubeconfig("https://hub:6443"),
            namespace: "karmada-system",
            settings: { members },
            runningMembers: async (_kc, n) => {
                asked.push(`${n.namespace}/${n.statefulSet}`);
                if (running instanceof Error) throw running;
                return running;
            },
        });
        const error = await run.settle().then(
            () => undefined,
            (e: Error) => e.message,
        );
        return { asked, error, statefulSets: run.ofType("kubernetes:apps/v1:StatefulSet") };
    }

    test("the same count, a first install, or a host that cannot be read (a warning): the StatefulSet goes ahead", async () => {
        for (const running of [5, undefined, new Error("connection refused")]) {
            const { error, statefulSets } = await etcdOver(5, running);
            expect([String(running), error]).toEqual([String(running), undefined]);
            expect(statefulSets.map((s) => s.inputs.spec.replicas)).toEqual([5]);
        }
    });
});
