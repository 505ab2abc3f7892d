// KarmadaPullMember: a member that joins Karmada in Pull mode. Karmada's agent runs on the member
// and calls the Karmada API with a client certificate of its own; Karmada holds no credential of the
// member. Declared as typed objects, not `karmadactl register` (imperative: it refuses objects that
// exist and polls for its certificate) nor the chart's agent mode (fixed flags, the member's
// credentials reported to Karmada, `*` on `*` for the agent).
//
//   Karmada API: the agent's rights (its Cluster, its Leases, the Works of karmada-es-<member>)
//                and its certificate (agent-resources.ts)
//   member:      namespace karmada-system, the agent's ServiceAccount and rights (the narrow plan of
//                `kamino:karmada.memberAccess` plus its own), its kubeconfig Secret, its Deployment
//   then:        the registration: the agent's Cluster Ready and labelled; on delete, the member
//                drained while the agent still runs, then the Cluster deleted
import * as crypto from "crypto";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KARMADA_SYSTEM_LABELS } from "../control-plane/control-plane";
import { AgentCertificate, PullClusterRegistration } from "./agent-resources";
import { KubeCall, waitForPullCluster } from "./agent-registration";
import { kubeRequest } from "../../live/kube-read";
import { formatAge, ProgressSink } from "../../live/progress";
import { MemberAccessPlan, PolicyRule } from "./member-access";
import { AfterCleanup, gatedBy, grantClusterRights, grantNamespaceRights } from "./member-rights";
import {
    AGENT_KUBECONFIG_DIR,
    AGENT_KUBECONFIG_KEY,
    AGENT_LEASE_RULES,
    AGENT_NAMESPACE,
    AGENT_SELF_MEMBER_RULES,
    AGENT_WORK_RULES,
    CLUSTER_LEASE_NAMESPACE,
    agentArgs,
    agentKarmadaRules,
    agentKubeconfig,
    agentNames,
    karmadaServer,
} from "./pull-agent";
import { KarmadaContext } from "../../common/karmada-context";

/** Waits until a Pull member's agent has registered its Cluster and Karmada reports it Ready; lines go to `onProgress`. */
export type AgentReadyWaiter = (
    karmadaKubeconfig: string,
    clusterName: string,
    timeoutSeconds: number,
    onProgress: ProgressSink,
) => Promise<{ waitedSeconds: number }>;

/** The real one: polls the Karmada API. */
export const liveAgentReadyWaiter: AgentReadyWaiter = (kc, clusterName, timeoutSeconds, onProgress) => {
    const call: KubeCall = (method, path, body, contentType) => kubeRequest(kc, method, path, body, { contentType });
    return waitForPullCluster(call, { clusterName, timeoutSeconds, onProgress });
};

/** Arguments of a KarmadaPullMember. */
export interface KarmadaPullMemberArgs {
    /** The member's name in Karmada (DNS-1123 label, at most 48 characters). */
    clusterName: string;
    /** Provider of the member cluster. */
    memberProvider: k8s.Provider;
    /** The Karmada it joins; its kubeconfig (as this program reaches it) is for the certificate and the registration. */
    karmada: KarmadaContext & Required<Pick<KarmadaContext, "kubeconfig">>;
    /** The Karmada API server as the agent on the member reaches it, e.g. `https://<kind node>:<NodePort>`. */
    agentServer: pulumi.Input<string>;
    /** The member API server as Karmada records it (`Cluster.spec.apiEndpoint`). */
    apiEndpoint: pulumi.Input<string>;
    /** The agent's image, e.g. `docker.io/karmada/karmada-agent:v1.18.2`. */
    agentImage: string;
    /** Labels on the Karmada `Cluster`, matched by placements' `clusterLabels`. */
    labels?: Record<string, string>;
    /** `Cluster.spec.provider`. */
    provider?: string;
    /** `Cluster.spec.region`. */
    region?: pulumi.Input<string>;
    /** `Cluster.spec.zones`. */
    zones?: pulumi.Input<pulumi.Input<string>[]>;
    /** The agent's failure-detection flags (detection.ts `agent`). */
    detection?: Record<string, string>;
    /** How long to wait for the agent to register and report Ready (and for the drain on removal). */
    readyTimeoutSeconds: number;
    /** Resource whose deletion deletes the member cluster; member-side objects are then not deleted one by one. */
    memberLifecycle?: pulumi.Resource;
    /** Resources the member must have before it joins (IKO's release, for its CRD). */
    joinAfter?: pulumi.Resource[];
    /** What the agent may do on the member for Karmada (memberAccessPlan). */
    access: MemberAccessPlan;
    /** Settles once Karmada has taken objects that leave the config off the members (see KarmadaMemberArgs). */
    narrowAfter?: pulumi.Input<unknown>;
    /** Do not wait for the agent's Deployment to be available (API servers without nodes: tests only). */
    skipAwait?: boolean;
    /** Settles when the join may write (JoinTarget.gate); a failure stops it before it writes anything. */
    gate?: pulumi.Output<unknown>;
    /** How `up` waits for the agent's Cluster to be Ready; the default polls the Karmada API. */
    readyWaiter?: AgentReadyWaiter;
}

/** A member cluster joined to Karmada in Pull mode. */
export class KarmadaPullMember extends pulumi.ComponentResource {
    /** The member's name in Karmada. */
    public readonly clusterName: string;
    /** The agent's Cluster in Karmada, Ready and labelled: what placements wait for. */
    public readonly cluster: PullClusterRegistration;
    /** The bindings that give the agent its rights on the member; Karmada's writes there depend on them. */
    public readonly access: pulumi.Resource[];
    /**
     * What every object Karmada propagates to this member waits for, and outlives on destroy: the
     * agent's rights and its registration. The registration's removal drains the member, so nothing
     * that would send new Works there (a Secret's template, a namespace) may outlive it.
     */
    public readonly propagatesAfter: pulumi.Resource[];
    /** The agent's Deployment on the member. */
    public readonly agent: k8s.apps.v1.Deployment;
    /** When the agent's certificate expires; an `up` after two thirds of its life renews it. */
    public readonly certificateNotAfter: pulumi.Output<string>;

    constructor(name: string, args: KarmadaPullMemberArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:KarmadaPullMember", name, {}, opts);
        this.clusterName = args.clusterName;
        const n = agentNames(args.clusterName);
        // Nothing of the join is written before its gate allows it (a sync-mode change is refused first).
        const onMember: pulumi.CustomResourceOptions = {
            parent: this,
            provider: args.memberProvider,
            deletedWith: args.memberLifecycle,
            ...gatedBy(args.gate),
        };
        const onKarmada: pulumi.CustomResourceOptions = {
            parent: this,
            provider: args.karmada.provider,
            deletedWith: args.karmada.lifecycle,
            ...gatedBy(args.gate),
        };
        const narrowAfter = args.narrowAfter;
        const afterCleanup: AfterCleanup = <T>(rules: T): pulumi.Input<T> =>
            narrowAfter === undefined ? rules : (pulumi.unsecret(pulumi.output(narrowAfter).apply(() => rules)) as pulumi.Output<T>);

        const karmadaRights = this.karmadaRights(name, args.clusterName, onKarmada);
        const certificate = new AgentCertificate(
            `${name}-agent-cert`,
            { karmadaKubeconfig: args.karmada.kubeconfig, clusterName: args.clusterName, timeoutSeconds: 120 },
            { parent: this, deletedWith: args.karmada.lifecycle, dependsOn: karmadaRights },
        );
        this.certificateNotAfter = certificate.notAfter;

        // On the member: the agent's namespace, identity and rights.
        const ns = new k8s.core.v1.Namespace(`${name}-agent-ns`, { metadata: { name: AGENT_NAMESPACE, labels: KARMADA_SYSTEM_LABELS } }, onMember);
        const sa = new k8s.core.v1.ServiceAccount(
            `${name}-agent-sa`,
            { metadata: { name: n.agent, namespace: ns.metadata.name, labels: KARMADA_SYSTEM_LABELS } },
            onMember,
        );
        const subject = { kind: "ServiceAccount", name: sa.metadata.name, namespace: ns.metadata.name };
        const clusterRules = pulumi.output(afterCleanup(args.access.clusterRules)).apply((rules) => [...(rules as PolicyRule[]), ...AGENT_SELF_MEMBER_RULES]);
        const binding = grantClusterRights(name, { roleName: n.memberClusterRole, rules: clusterRules, subject }, onMember);
        this.access = [binding, ...grantNamespaceRights(name, { roleName: n.memberClusterRole, access: args.access, subject, afterCleanup }, onMember)];

        const kubeconfig = pulumi.secret(
            pulumi
                .all([args.karmada.kubeconfig, args.agentServer, certificate.certificate, certificate.privateKey])
                .apply(([kc, server, cert, key]) => agentKubeconfig(server, karmadaServer(kc).caPem, cert, key)),
        );
        const secret = new k8s.core.v1.Secret(
            `${name}-agent-kubeconfig`,
            {
                metadata: { name: n.kubeconfigSecret, namespace: ns.metadata.name, labels: KARMADA_SYSTEM_LABELS },
                stringData: { [AGENT_KUBECONFIG_KEY]: kubeconfig },
            },
            onMember,
        );
        this.agent = this.deployment(name, args, sa, secret, kubeconfig, [...karmadaRights, ...this.access, ...(args.joinAfter ?? [])], onMember);

        // After the agent: its Cluster Ready. Deleted before the agent, while it can still drain the member.
        this.cluster = new PullClusterRegistration(
            `${name}-registration`,
            {
                karmadaKubeconfig: args.karmada.kubeconfig,
                clusterName: args.clusterName,
                labels: args.labels ?? {},
                timeoutSeconds: args.readyTimeoutSeconds,
                agentRevision: this.agentReady(args, this.agentRevision(kubeconfig, this.agent)),
            },
            { parent: this, dependsOn: [this.agent], deletedWith: args.karmada.lifecycle },
        );
        this.propagatesAfter = [...this.access, this.cluster];
        this.registerOutputs({ clusterName: this.clusterName, certificateNotAfter: this.certificateNotAfter });
    }

    /** In the Karmada API: the agent's cluster-wide rights, its Works, its Leases. */
    private karmadaRights(name: string, clusterName: string, onKarmada: pulumi.CustomResourceOptions): pulumi.Resource[] {
        const n = agentNames(clusterName);
        const labels = KARMADA_SYSTEM_LABELS;
        const user = { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: n.user };
        const role = new k8s.rbac.v1.ClusterRole(
            `${name}-karmada-role`,
            { metadata: { name: n.karmadaClusterRole, labels }, rules: agentKarmadaRules(clusterName) },
            onKarmada,
        );
        const binding = new k8s.rbac.v1.ClusterRoleBinding(
            `${name}-karmada-binding`,
            {
                metadata: { name: n.karmadaClusterRole, labels },
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role.metadata.name },
                subjects: [user],
            },
            onKarmada,
        );
        // Karmada makes the execution namespace when the Cluster appears, and deletes it with the
        // Cluster; made here first so that the agent's Role on Works is there before any Work.
        const es = new k8s.core.v1.Namespace(`${name}-execution-ns`, { metadata: { name: n.executionNamespace } }, onKarmada);
        const roleIn = (id: string, roleName: string, namespace: pulumi.Input<string>, rules: PolicyRule[], o: pulumi.CustomResourceOptions) => {
            const r = new k8s.rbac.v1.Role(`${name}-${id}-role`, { metadata: { name: roleName, namespace, labels }, rules }, o);
            return new k8s.rbac.v1.RoleBinding(
                `${name}-${id}-binding`,
                {
                    metadata: { name: roleName, namespace, labels },
                    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: r.metadata.name },
                    subjects: [user],
                },
                o,
            );
        };
        const work = roleIn("work", n.workRole, es.metadata.name, AGENT_WORK_RULES, { ...onKarmada, deletedWith: es });
        const lease = roleIn(`lease-${CLUSTER_LEASE_NAMESPACE}`, n.leaseRole, CLUSTER_LEASE_NAMESPACE, AGENT_LEASE_RULES, onKarmada);
        return [binding, work, lease];
    }

    /**
     * The agent's Deployment: one replica, without leader election (agentArgs), so rolled by
     * Recreate: the old agent gone before the new one starts. Restarted when its kubeconfig changes.
     */
    private deployment(
        name: string,
        args: KarmadaPullMemberArgs,
        sa: k8s.core.v1.ServiceAccount,
        secret: k8s.core.v1.Secret,
        kubeconfig: pulumi.Output<string>,
        after: pulumi.Resource[],
        onMember: pulumi.CustomResourceOptions,
    ): k8s.apps.v1.Deployment {
        const n = agentNames(args.clusterName);
        const labels = { app: n.agent };
        const command = pulumi.all([args.apiEndpoint, args.region, args.zones]).apply(([apiEndpoint, region, zones]) =>
            agentArgs({
                clusterName: args.clusterName,
                apiEndpoint,
                provider: args.provider,
                region,
                zones: zones as string[] | undefined,
                detection: args.detection,
            }),
        );
        return new k8s.apps.v1.Deployment(
            `${name}-agent`,
            {
                metadata: {
                    name: n.agent,
                    namespace: secret.metadata.namespace,
                    labels: { ...labels, ...KARMADA_SYSTEM_LABELS },
                    ...(args.skipAwait ? { annotations: { "pulumi.com/skipAwait": "true" } } : {}),
                },
                spec: {
                    replicas: 1,
                    strategy: { type: "Recreate" },
                    selector: { matchLabels: labels },
                    template: {
                        // A renewed certificate rolls the agent: it reads its kubeconfig only at start. The
                        // hash is no secret (it reveals nothing of the key), so previews show the spec.
                        metadata: { labels, annotations: { "kamino.io/kubeconfig-sha256": pulumi.unsecret(kubeconfig.apply(sha256)) } },
                        spec: {
                            serviceAccountName: sa.metadata.name,
                            containers: [
                                {
                                    name: n.agent,
                                    image: args.agentImage,
                                    command: ["/bin/karmada-agent"],
                                    args: command,
                                    volumeMounts: [{ name: "karmada-kubeconfig", mountPath: AGENT_KUBECONFIG_DIR, readOnly: true }],
                                    livenessProbe: { httpGet: { path: "/healthz", port: 10357 }, initialDelaySeconds: 15, periodSeconds: 15 },
                                    resources: { requests: { cpu: "100m", memory: "128Mi" } },
                                },
                            ],
                            volumes: [{ name: "karmada-kubeconfig", secret: { secretName: secret.metadata.name } }],
                        },
                    },
                },
            },
            { ...onMember, dependsOn: [secret, ...after] },
        );
    }

    /**
     * On `up`: `revision` once the agent's Cluster is Ready, waited for here, in the program, so that
     * the wait shows what Karmada reports on this component while it lasts (a dynamic resource's
     * provider cannot write to Pulumi's display). The registration then finds it Ready at once.
     */
    private agentReady(args: KarmadaPullMemberArgs, revision: pulumi.Output<string>): pulumi.Output<string> {
        if (pulumi.runtime.isDryRun()) return revision;
        const wait = args.readyWaiter ?? liveAgentReadyWaiter;
        return pulumi.all([pulumi.output(args.karmada.kubeconfig), revision, this.agent.metadata.uid]).apply(async ([kc, rev]) => {
            try {
                const { waitedSeconds } = await wait(kc, args.clusterName, args.readyTimeoutSeconds, (line) => pulumi.log.info(line, this, undefined, true));
                pulumi.log.info(`Cluster ${args.clusterName} joined by its agent and Ready (waited ${formatAge(waitedSeconds)})`, this);
            } catch (e) {
                throw new pulumi.RunError((e as Error).message);
            }
            return rev;
        });
    }

    /** Changes when the agent is rolled out again, so that the registration waits for Ready again. */
    private agentRevision(kubeconfig: pulumi.Output<string>, agent: k8s.apps.v1.Deployment): pulumi.Output<string> {
        return pulumi.unsecret(
            pulumi.all([kubeconfig, agent.spec.template.spec.containers]).apply(([kc, containers]) => sha256(JSON.stringify([kc, containers])).slice(0, 16)),
        );
    }
}

const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");
