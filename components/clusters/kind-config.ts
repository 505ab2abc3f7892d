// Pure helpers that render kind's cluster config.
import * as YAML from "yaml";

/** A host port forwarded to a node port of the kind control-plane container. */
export interface PortMapping {
    /** The port inside the node container (a NodePort of a Service). */
    containerPort: number;
    /** The port on the machine running Docker. */
    hostPort: number;
    /** Host address to bind; loopback keeps the port off the network. */
    listenAddress?: string;
    /** What the port is for, named in errors (not part of kind's config). */
    description?: string;
}

/** What a kind cluster looks like. */
export interface KindConfigArgs {
    /** Worker nodes besides the control plane. */
    workers: number;
    /** `kindest/node` image; kind's default when unset. */
    nodeImage?: string;
    /** Pod CIDR; distinct per cluster so that members never overlap. */
    podSubnet?: string;
    /** Service CIDR; distinct per cluster. */
    serviceSubnet?: string;
    /** Ports forwarded from the host to the control-plane node, e.g. the Karmada API NodePort. */
    portMappings?: PortMapping[];
}

/**
 * Renders `kind.x-k8s.io/v1alpha4` Cluster YAML: the default CNI is disabled because Cilium is
 * installed by Kamino, as in the seed article.
 */
export function renderKindConfig(args: KindConfigArgs): string {
    const node = (role: "control-plane" | "worker", extra: Record<string, unknown> = {}) => ({
        role,
        ...(args.nodeImage ? { image: args.nodeImage } : {}),
        ...extra,
    });
    const mappings = (args.portMappings ?? []).map((m) => ({
        containerPort: m.containerPort,
        hostPort: m.hostPort,
        listenAddress: m.listenAddress ?? "127.0.0.1",
        protocol: "TCP",
    }));
    const config = {
        kind: "Cluster",
        apiVersion: "kind.x-k8s.io/v1alpha4",
        nodes: [
            node("control-plane", mappings.length > 0 ? { extraPortMappings: mappings } : {}),
            ...Array.from({ length: args.workers }, () => node("worker")),
        ],
        networking: {
            disableDefaultCNI: true,
            ...(args.podSubnet ? { podSubnet: args.podSubnet } : {}),
            ...(args.serviceSubnet ? { serviceSubnet: args.serviceSubnet } : {}),
        },
    };
    return YAML.stringify(config);
}

/**
 * Non-overlapping pod and service CIDRs for the i-th kind cluster of a fleet
 * (10.(16+2i).0.0/16 and 10.(17+2i).0.0/16), unless the stack sets its own.
 */
export function defaultSubnets(index: number): { podSubnet: string; serviceSubnet: string } {
    const base = 16 + 2 * index;
    if (base + 1 > 255) throw new Error(`no default subnets for kind cluster #${index}; set podSubnet and serviceSubnet`);
    return { podSubnet: `10.${base}.0.0/16`, serviceSubnet: `10.${base + 1}.0.0/16` };
}

/** The API server address of a kind cluster on the Docker `kind` network (`kind get kubeconfig --internal`). */
export function kindInternalEndpoint(kindName: string): string {
    return `https://${kindName}-control-plane:6443`;
}
