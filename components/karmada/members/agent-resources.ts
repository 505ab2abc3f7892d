// Two dynamic resources for a Pull member, for the steps of its life that are calls, not objects
// (agent-registration.ts does the calls):
// - AgentCertificate: the agent's key, made here and kept only in Pulumi's state as a secret, and
//   the certificate Karmada signs for it. Replaced (a new key and certificate) by the first `up`
//   after two thirds of its life, or when the Karmada API it was signed by changes.
// - PullClusterRegistration: created once the agent runs, it waits until the agent's Cluster is
//   Ready and labels it; deleted before the agent, it drains the member and deletes the Cluster.
// Their provider code runs in Pulumi's dynamic-provider process: it reaches Karmada with the
// kubeconfig given as a (secret) input, and imports only what that process can load.
import * as pulumi from "@pulumi/pulumi";
import { kubeRequest } from "../../live/kube-read";
import { drainAndDeleteCluster, KubeCall, requestAgentCertificate, setClusterLabels, waitForPullCluster } from "./agent-registration";
import { certificateNeedsRenewal } from "../../common/certificates";
import { AGENT_CERT_SECONDS, AGENT_GROUP, agentNames, karmadaServer } from "./pull-agent";

const karmadaCall =
    (kubeconfig: string): KubeCall =>
    (method, path, body, contentType) =>
        kubeRequest(kubeconfig, method, path, body, { contentType });

/** The CA a kubeconfig trusts: a certificate from one Karmada is worthless on another. */
const karmadaCa = (kubeconfig: string) => karmadaServer(kubeconfig).caPem;

interface CertificateInputs {
    karmadaKubeconfig: string;
    clusterName: string;
    timeoutSeconds: number;
}
interface CertificateOutputs extends CertificateInputs {
    certificate: string;
    privateKey: string;
    notBefore: string;
    notAfter: string;
}

/** A new RSA key and a CSR naming the agent's user and group (node-forge: Node's crypto makes keys, not CSRs). */
function keyAndCsr(clusterName: string): { keyPem: string; csrPem: string } {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const forge = require("node-forge") as typeof import("node-forge");
    const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
    const csr = forge.pki.createCertificationRequest();
    csr.publicKey = keys.publicKey;
    csr.setSubject([
        { name: "organizationName", value: AGENT_GROUP },
        { name: "commonName", value: agentNames(clusterName).user },
    ]);
    csr.sign(keys.privateKey, forge.md.sha256.create());
    return { keyPem: forge.pki.privateKeyToPem(keys.privateKey), csrPem: forge.pki.certificationRequestToPem(csr) };
}

/** The AgentCertificate's provider (exported so that a test can serialize it as Pulumi does). */
export const certificateProvider: pulumi.dynamic.ResourceProvider = {
    async create(inputs: CertificateInputs) {
        const { keyPem, csrPem } = keyAndCsr(inputs.clusterName);
        const csrName = `kamino-agent-${inputs.clusterName}-${Date.now().toString(36)}`;
        const cert = await requestAgentCertificate(karmadaCall(inputs.karmadaKubeconfig), {
            clusterName: inputs.clusterName,
            csrPem,
            csrName,
            expirationSeconds: AGENT_CERT_SECONDS,
            timeoutSeconds: inputs.timeoutSeconds,
        });
        const outs: CertificateOutputs = { ...inputs, ...cert, privateKey: keyPem };
        return { id: csrName, outs };
    },
    async diff(_id, olds: CertificateOutputs, news: CertificateInputs) {
        const replaces: string[] = [];
        if (olds.clusterName !== news.clusterName) replaces.push("clusterName");
        if (karmadaCa(olds.karmadaKubeconfig) !== karmadaCa(news.karmadaKubeconfig)) replaces.push("karmadaKubeconfig");
        if (certificateNeedsRenewal(new Date(olds.notBefore), new Date(olds.notAfter), new Date())) replaces.push("notAfter");
        return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
    },
    // Nothing to read back (the CSR is gone) and nothing to delete: the certificate just expires.
    async read(id, props) {
        return { id, props };
    },
    async delete() {},
};

/** Arguments of an AgentCertificate. */
export interface AgentCertificateArgs {
    /** Kubeconfig of the Karmada API (secret); its identity must be allowed to create CSRs of signer kube-apiserver-client. */
    karmadaKubeconfig: pulumi.Input<string>;
    /** The member's name in Karmada; the certificate names `system:karmada:agent:<name>`. */
    clusterName: pulumi.Input<string>;
    /** How long to wait for Karmada to approve and sign. */
    timeoutSeconds: pulumi.Input<number>;
}

/** The agent's client certificate for the Karmada API, and its private key (secret). */
export class AgentCertificate extends pulumi.dynamic.Resource {
    /** PEM. */
    declare public readonly certificate: pulumi.Output<string>;
    /** PEM; secret. */
    declare public readonly privateKey: pulumi.Output<string>;
    /** When the certificate expires (ISO time); an `up` after two thirds of its life replaces it. */
    declare public readonly notAfter: pulumi.Output<string>;

    constructor(name: string, args: AgentCertificateArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            certificateProvider,
            name,
            { ...args, certificate: undefined, privateKey: undefined, notBefore: undefined, notAfter: undefined },
            { ...opts, additionalSecretOutputs: ["privateKey", "karmadaKubeconfig"] },
            "kamino",
            "AgentCertificate",
        );
    }
}

interface RegistrationInputs {
    karmadaKubeconfig: string;
    clusterName: string;
    labels: Record<string, string>;
    timeoutSeconds: number;
    /** Changes whenever the agent is rolled out again; the registration then waits for Ready again. */
    agentRevision: string;
}
interface RegistrationOutputs extends RegistrationInputs {
    clusterId: string;
}

/** The PullClusterRegistration's provider (exported so that a test can serialize it as Pulumi does). */
export const registrationProvider: pulumi.dynamic.ResourceProvider = {
    async create(inputs: RegistrationInputs) {
        const call = karmadaCall(inputs.karmadaKubeconfig);
        const { id } = await waitForPullCluster(call, inputs);
        await setClusterLabels(call, inputs.clusterName, inputs.labels);
        const outs: RegistrationOutputs = { ...inputs, clusterId: id };
        return { id: inputs.clusterName, outs };
    },
    async diff(_id, olds: RegistrationOutputs, news: RegistrationInputs) {
        const replaces =
            olds.clusterName !== news.clusterName || karmadaCa(olds.karmadaKubeconfig) !== karmadaCa(news.karmadaKubeconfig) ? ["clusterName"] : [];
        const changes =
            replaces.length > 0 ||
            JSON.stringify(olds.labels) !== JSON.stringify(news.labels) ||
            olds.agentRevision !== news.agentRevision ||
            olds.timeoutSeconds !== news.timeoutSeconds;
        return { changes, replaces, deleteBeforeReplace: true };
    },
    async update(_id, olds: RegistrationOutputs, news: RegistrationInputs) {
        const call = karmadaCall(news.karmadaKubeconfig);
        const { id } = await waitForPullCluster(call, news);
        await setClusterLabels(call, news.clusterName, news.labels, olds.labels);
        const outs: RegistrationOutputs = { ...news, clusterId: id };
        return { outs };
    },
    async read(id, props: RegistrationOutputs) {
        return { id, props };
    },
    async delete(_id, olds: RegistrationOutputs) {
        await drainAndDeleteCluster(karmadaCall(olds.karmadaKubeconfig), { clusterName: olds.clusterName, timeoutSeconds: olds.timeoutSeconds });
    },
};

/** Arguments of a PullClusterRegistration. */
export interface PullClusterRegistrationArgs {
    /** Kubeconfig of the Karmada API (secret). */
    karmadaKubeconfig: pulumi.Input<string>;
    /** The member's name in Karmada. */
    clusterName: pulumi.Input<string>;
    /** Labels of the Cluster, matched by placements' `clusterLabels`. */
    labels: pulumi.Input<Record<string, string>>;
    /** How long to wait for the agent to register and report Ready, and for a drain. */
    timeoutSeconds: pulumi.Input<number>;
    /** A value that changes when the agent is rolled out again (its kubeconfig or arguments). */
    agentRevision: pulumi.Input<string>;
}

/** The agent's Cluster in Karmada, Ready and labelled; deleting it drains the member first. */
export class PullClusterRegistration extends pulumi.dynamic.Resource {
    /** The Cluster's `spec.id`: the uid of the member's `kube-system` namespace. */
    declare public readonly clusterId: pulumi.Output<string>;

    constructor(name: string, args: PullClusterRegistrationArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            registrationProvider,
            name,
            { ...args, clusterId: undefined },
            { ...opts, additionalSecretOutputs: ["karmadaKubeconfig"] },
            "kamino",
            "PullClusterRegistration",
        );
    }
}
