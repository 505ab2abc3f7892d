// Checks of where Karmada runs and how it is reached. Its topology decides: `single` (a kind host,
// or an existing one such as a hand-made kind, minikube or bare-metal cluster) runs one of each
// component over the chart's etcd, with the API on a NodePort: a kind host publishes it on this
// machine only, an existing host where `endpoint` says; `highlyAvailable` (gke, and existing by
// default) gets Kamino's etcd and load balancer, at a reserved address (gke) or the user's
// `endpoint` (existing), open only to `authorizedNetworks`. An existing Karmada
// (`existingKubeconfigPath`) is not installed by Kamino, so the install-only keys do not apply.
import { isIP } from "net";
import { isAnyNetwork, isCidr } from "./cidr";
import { CONFIG_NAMESPACE } from "./defaults";
import type { CheckedConfig } from "./context";
import { Problem } from "./problems";

/** A parsed `kamino:karmada.endpoint`: the host (IP or DNS name) and the port, if given. */
export interface Endpoint {
    host: string;
    port?: number;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address; a string saying what is wrong otherwise. */
export function parseEndpoint(text: string): Endpoint | string {
    let host = text.trim();
    let port: number | undefined;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) return "is a URL; give only the address (an IP or a DNS name), with an optional :port";
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
    if (bracketed) {
        if (isIP(bracketed[1]) !== 6) return "is not an IPv6 address in brackets";
        return bracketed[2] === undefined ? { host: bracketed[1] } : withPort(bracketed[1], bracketed[2]);
    }
    if (isIP(host) === 6) return { host };
    const colon = host.lastIndexOf(":");
    if (colon >= 0) {
        const p = withPort(host.slice(0, colon), host.slice(colon + 1));
        if (typeof p === "string") return p;
        host = p.host;
        port = p.port;
    }
    if (isIP(host) === 4) return { host, port };
    const name = host.toLowerCase().replace(/\.$/, "");
    if (name.length === 0 || name.length > 253 || !name.split(".").every((l) => DNS_LABEL.test(l)) || /^[\d.]+$/.test(name)) {
        return "is neither an IP address nor a DNS name";
    }
    return { host: name, port };
}

function withPort(host: string, text: string): Endpoint | string {
    const port = Number(text);
    return /^\d+$/.test(text) && port >= 1 && port <= 65535 ? { host, port } : `has a port that is not a number from 1 to 65535 (${text})`;
}

/**
 * Whether a gke cluster gets private nodes behind Cloud NAT on reserved addresses: as the stack says,
 * and by default for the members of a Karmada hosted off kind, whose agents must stay inside
 * `authorizedNetworks` when GKE recreates their nodes. Members of a kind host keep public nodes.
 */
export function gkePrivateNodes(
    c: { provider: string; karmadaHost: boolean; privateNodes?: boolean },
    clusters: { provider: string; karmadaHost: boolean }[],
): boolean {
    if (c.provider !== "gke") return false;
    return c.privateNodes ?? (!c.karmadaHost && clusters.some((h) => h.karmadaHost && h.provider !== "kind"));
}

/** How Karmada runs on the host Kamino installs it on. */
export type KarmadaTopology = "single" | "highlyAvailable";

/** The topology a stack asks for, else its host's default: single on kind, highly available elsewhere. */
export function karmadaTopology(k: { topology?: KarmadaTopology }, host: { provider: string }): KarmadaTopology {
    return k.topology ?? (host.provider === "kind" ? "single" : "highlyAvailable");
}

/** `kamino:karmada.etcd` only where Kamino runs its etcd: under a highly available Karmada it installs. */
export function checkKarmadaEtcd(cfg: CheckedConfig): Problem[] {
    const k = cfg.karmada;
    const host = cfg.clusters.find((c) => c.karmadaHost);
    if (!k || !host || k.etcd === undefined) return [];
    const existing = k.existingKubeconfigPath !== undefined;
    if (!existing && karmadaTopology(k, host) === "highlyAvailable") return [];
    const reason = existing
        ? "Kamino runs etcd only under a Karmada it installs; this one runs already (existingKubeconfigPath)"
        : host.provider === "kind"
          ? "a kind host runs the chart's single etcd; Kamino's own etcd is for a gke or existing host"
          : "a single Karmada runs the chart's own etcd; Kamino's three-member etcd is for topology highlyAvailable";
    return [{ path: ["karmada", "etcd"], reason, fix: existing || host.provider === "kind" ? "remove etcd" : "remove etcd, or remove topology" }];
}

/** The Karmada of a stack and its host, as the checks below read them. */
type HostCheck = { k: NonNullable<CheckedConfig["karmada"]>; host: CheckedConfig["clusters"][number]; hostIndex: number; at: (key: string) => Problem["path"] };

/** Where Karmada is installed and how it is reached: see the file comment. */
export function checkKarmadaHost(cfg: CheckedConfig): Problem[] {
    const k = cfg.karmada;
    const hostIndex = cfg.clusters.findIndex((c) => c.karmadaHost);
    const host = cfg.clusters[hostIndex];
    if (!k || !host) return [];
    const c: HostCheck = { k, host, hostIndex, at: (key) => ["karmada", key] };
    const problems = checkEndpointSyntax(c);
    if (k.existingKubeconfigPath !== undefined) return [...problems, ...checkExistingKarmada(c)];
    if (host.provider === "kind") return [...problems, ...checkKindHost(c)];
    if (karmadaTopology(k, host) === "single") return [...problems, ...checkSingleHost(c)];
    return [...problems, ...checkPublishedHost(cfg, c)];
}

/** `endpoint` and `authorizedNetworks` as written, wherever Karmada runs. */
function checkEndpointSyntax({ k, at }: HostCheck): Problem[] {
    const problems: Problem[] = [];
    if (k.endpoint !== undefined) {
        const parsed = parseEndpoint(k.endpoint);
        if (typeof parsed === "string")
            problems.push({
                path: at("endpoint"),
                reason: parsed,
                fix: "write an IP address or a DNS name, e.g. 203.0.113.10 or karmada.example.com (optionally :5443)",
            });
    }
    (k.authorizedNetworks ?? []).forEach((cidr, i) => {
        if (!isCidr(cidr)) {
            problems.push({
                path: ["karmada", "authorizedNetworks", i],
                reason: "is not a CIDR",
                fix: "write an address range such as 203.0.113.0/24, or 198.51.100.7/32 for one address",
            });
        } else if (isAnyNetwork(cidr) && !k.allowAnyNetwork) {
            problems.push({
                path: ["karmada", "authorizedNetworks", i],
                reason: "opens the Karmada API to the whole Internet",
                fix: `list the networks that need it (this machine or CI, each Pull member's egress); if you mean it, also set ${CONFIG_NAMESPACE}:karmada.allowAnyNetwork: true`,
            });
        }
    });
    return problems;
}

/** A Karmada that runs already: Kamino neither creates its host nor publishes it. */
function checkExistingKarmada({ k, host, hostIndex, at }: HostCheck): Problem[] {
    const problems: Problem[] = [];
    if (host.provider === "gke") {
        problems.push({
            path: ["clusters", hostIndex, "karmadaHost"],
            reason: `Kamino would create the gke cluster '${host.name}' to host Karmada, but ${CONFIG_NAMESPACE}:karmada.existingKubeconfigPath says Karmada already runs elsewhere`,
            fix: "remove existingKubeconfigPath to install Karmada on it, or make the host an existing cluster",
        });
    }
    if (k.authorizedNetworks !== undefined) {
        problems.push({
            path: at("authorizedNetworks"),
            reason: "Kamino publishes only a Karmada it installs; this one runs already (existingKubeconfigPath)",
            fix: "restrict access where that Karmada is published, and remove authorizedNetworks",
        });
    }
    if (k.topology !== undefined) {
        problems.push({
            path: at("topology"),
            reason: "Kamino installs nothing on a Karmada that runs already (existingKubeconfigPath); its topology is its own",
            fix: "remove topology",
        });
    }
    return problems;
}

/** A kind host: one of each component, the Karmada API on this machine only. */
function checkKindHost({ k, at }: HostCheck): Problem[] {
    const problems: Problem[] = [];
    if (k.topology === "highlyAvailable") {
        problems.push({
            path: at("topology"),
            reason: "a kind host runs one of each Karmada component over the chart's etcd, on this machine",
            fix: "remove topology, or host Karmada on a gke or existing cluster",
        });
    }
    if (k.endpoint !== undefined) {
        problems.push({
            path: at("endpoint"),
            reason: `a kind host publishes the Karmada API on 127.0.0.1:<apiServerHostPort> of this machine`,
            fix: "remove endpoint, or host Karmada on a gke or existing cluster",
        });
    }
    if (k.authorizedNetworks !== undefined) {
        problems.push({
            path: at("authorizedNetworks"),
            reason: "a kind host's Karmada API is reachable from this machine only",
            fix: "remove authorizedNetworks, or host Karmada on a gke or existing cluster",
        });
    }
    return problems;
}

/**
 * An existing host with topology `single`, as on kind: one of each component over the chart's
 * etcd and the API on its NodePort, reached at `endpoint` (a node's address, or a forward to one).
 */
function checkSingleHost({ k, host, at }: HostCheck): Problem[] {
    const problems: Problem[] = [];
    if (host.provider === "gke") {
        problems.push({
            path: at("topology"),
            reason: `Kamino publishes Karmada on the gke host '${host.name}' through a load balancer at a reserved address, highly available`,
            fix: "remove topology (or set it to highlyAvailable)",
        });
        return problems;
    }
    if (k.endpoint === undefined) {
        problems.push({
            path: at("endpoint"),
            reason: `a single Karmada on the existing cluster '${host.name}' is published on its NodePort (${k.apiServerNodePort}); Kamino and the members need the address that reaches it, and the chart puts it in the certificate`,
            fix: `pulumi config set --path ${CONFIG_NAMESPACE}:karmada.endpoint <a node's IP or DNS name>[:port] (the port defaults to apiServerNodePort)`,
        });
    }
    if (k.authorizedNetworks !== undefined) {
        problems.push({
            path: at("authorizedNetworks"),
            reason: "a single Karmada is published on a NodePort, with no load balancer to restrict",
            fix: "restrict access at the nodes' firewall and remove authorizedNetworks, or set topology: highlyAvailable",
        });
    }
    return problems;
}

/** A gke or existing host: Kamino's load balancer, at its address, open to the listed networks. */
function checkPublishedHost(cfg: CheckedConfig, { k, host, at }: HostCheck): Problem[] {
    const problems: Problem[] = [];
    if (host.provider === "gke" && k.endpoint !== undefined) {
        problems.push({
            path: at("endpoint"),
            reason: `Kamino reserves a static address for the Karmada API on the gke host '${host.name}'`,
            fix: "remove endpoint; the address is in the stack output karmadaEndpoint",
        });
    }
    if (host.provider === "existing" && k.endpoint === undefined) {
        problems.push({
            path: at("endpoint"),
            reason: `Karmada on the existing cluster '${host.name}' needs the address its load balancer will have, before the chart makes its certificates`,
            fix: `pulumi config set --path ${CONFIG_NAMESPACE}:karmada.endpoint <IP or DNS name> (an address your load balancer can take, or a name you will point at it)`,
        });
    }
    if (k.authorizedNetworks === undefined || k.authorizedNetworks.length === 0) {
        problems.push({
            path: at("authorizedNetworks"),
            reason: `the Karmada API on '${host.name}' gets a load balancer, and none says who may reach it`,
            fix: `pulumi config set --path '${CONFIG_NAMESPACE}:karmada.authorizedNetworks[0]' <CIDR>: this machine or CI, and each Pull member's egress (docs/production.md)`,
        });
    }
    // Karmada in the cloud cannot dial a cluster on this machine's Docker network.
    cfg.clusters.forEach((c, i) => {
        if (c.karmadaHost || c.provider !== "kind" || c.syncMode === "Pull") return;
        problems.push({
            path: ["clusters", i, "syncMode"],
            reason: `Karmada on '${host.name}' (${host.provider}) cannot call the kind cluster '${c.name}': it is on this machine's Docker network`,
            fix: `join '${c.name}' by Pull (syncMode: Pull): its agent calls Karmada; list this machine's egress in authorizedNetworks`,
        });
    });
    return problems;
}
