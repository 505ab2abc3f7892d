// The TLS of Karmada's etcd off kind: a CA made for this etcd only, the members' certificate (server
// and peer) and the client certificate of Karmada's apiservers. Made by a dynamic resource, so that
// the keys exist once, only in Pulumi's state (as secrets), and a preview does not change them.
// The CA lives ten years; the two certificates are signed again by the same CA by the first `up` in
// the last third of their life: members and apiservers trust the same CA throughout, so nothing has
// to restart at once.
import * as pulumi from "@pulumi/pulumi";
import { randomBytes, X509Certificate } from "crypto";
import { isIP } from "net";
import { certificateNeedsRenewal, Forge, issueCa, loadForge, newCertificate, newKeyPair } from "../../common/certificates";
import { ETCD_CLIENT_CN, ETCD_PEER_CN } from "./etcd-cluster";

/** Lifetime of the CA. Replacing it means restarting every member and apiserver at once, so it is long. */
export const ETCD_CA_YEARS = 10;
/** Lifetime of the members' and the client certificate; renewed in their last third. */
export const ETCD_CERT_YEARS = 3;

/** PEMs of the CA, the members' certificate and the apiservers' client certificate. */
export interface EtcdCertificateSet {
    caCrt: string;
    caKey: string;
    memberCrt: string;
    memberKey: string;
    clientCrt: string;
    clientKey: string;
    /** ISO times of the two certificates' validity (the CA outlives them). */
    notBefore: string;
    notAfter: string;
}

/** A new CA for this etcd. */
export const issueEtcdCa = (now: Date) => issueCa("karmada-etcd-ca", ETCD_CA_YEARS, now);

/** A certificate signed by the CA: the members' (server and peer, valid for `hosts`) or the client's (no names). */
function issueLeaf(forge: Forge, ca: { caCrt: string; caKey: string }, commonName: string, hosts: string[], now: Date): { crt: string; key: string } {
    const caCert = forge.pki.certificateFromPem(ca.caCrt);
    const keys = newKeyPair(forge);
    const cert = newCertificate(forge, keys.publicKey, commonName, now, ETCD_CERT_YEARS);
    cert.setIssuer(caCert.subject.attributes);
    cert.setExtensions([
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: hosts.length > 0, clientAuth: true },
        ...(hosts.length > 0 ? [{ name: "subjectAltName", altNames: hosts.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) }] : []),
    ]);
    cert.sign(forge.pki.privateKeyFromPem(ca.caKey), forge.md.sha256.create());
    return { crt: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** The members' and the client certificate, signed by `ca` (a new CA when none is given). */
export function issueEtcdCertificates(hosts: string[], now: Date, ca: { caCrt: string; caKey: string } = issueEtcdCa(now)): EtcdCertificateSet {
    const forge = loadForge();
    const member = issueLeaf(forge, ca, ETCD_PEER_CN, hosts, now);
    const client = issueLeaf(forge, ca, ETCD_CLIENT_CN, [], now);
    const x509 = new X509Certificate(member.crt);
    return {
        ...ca,
        memberCrt: member.crt,
        memberKey: member.key,
        clientCrt: client.crt,
        clientKey: client.key,
        notBefore: new Date(x509.validFrom).toISOString(),
        notAfter: new Date(x509.validTo).toISOString(),
    };
}

/** The member Secret's files, as each member mounts them at ETCD_CERT_DIR (etcd-cluster.ts: etcdCommand names them). */
export const etcdMemberFiles = <T>(c: { caCrt: T; memberCrt: T; memberKey: T }) => ({ "ca.crt": c.caCrt, "tls.crt": c.memberCrt, "tls.key": c.memberKey });

interface CertificateInputs {
    /** The names the members' certificate is valid for. */
    hosts: string[];
}
type CertificateOutputs = CertificateInputs & EtcdCertificateSet;

/** The EtcdCertificates' provider (exported so that a test can serialize it as Pulumi does). */
export const etcdCertificatesProvider: pulumi.dynamic.ResourceProvider = {
    async create(inputs: CertificateInputs) {
        const outs: CertificateOutputs = { ...inputs, ...issueEtcdCertificates(inputs.hosts, new Date()) };
        return { id: `karmada-etcd-${randomBytes(4).toString("hex")}`, outs };
    },
    // Other names, or the last third of the certificates' life: signed again by the same CA, in place.
    async diff(_id, olds: CertificateOutputs, news: CertificateInputs) {
        const renamed = JSON.stringify(olds.hosts) !== JSON.stringify(news.hosts);
        const ageing = certificateNeedsRenewal(new Date(olds.notBefore), new Date(olds.notAfter), new Date());
        return { changes: renamed || ageing, replaces: [], deleteBeforeReplace: false };
    },
    async update(_id, olds: CertificateOutputs, news: CertificateInputs) {
        const outs: CertificateOutputs = { ...news, ...issueEtcdCertificates(news.hosts, new Date(), { caCrt: olds.caCrt, caKey: olds.caKey }) };
        return { outs };
    },
    async read(id, props) {
        return { id, props };
    },
    // Nothing outside the state: the certificates just stop being used.
    async delete() {},
};

/** Arguments of EtcdCertificates. */
export interface EtcdCertificatesArgs {
    /** The names the members' certificate is valid for (etcd-cluster.ts: etcdCertificateHosts). */
    hosts: pulumi.Input<string[]>;
}

/** The CA of Karmada's etcd and the certificates it signs; the keys are secrets. */
export class EtcdCertificates extends pulumi.dynamic.Resource {
    /** PEM of the CA, which members and apiservers trust. */
    declare public readonly caCrt: pulumi.Output<string>;
    /** PEM of the members' certificate (server and peer). */
    declare public readonly memberCrt: pulumi.Output<string>;
    /** PEM of the members' key; secret. */
    declare public readonly memberKey: pulumi.Output<string>;
    /** PEM of the apiservers' client certificate. */
    declare public readonly clientCrt: pulumi.Output<string>;
    /** PEM of the apiservers' client key; secret. */
    declare public readonly clientKey: pulumi.Output<string>;
    /** When the members' and client certificates were signed (ISO); changes on renewal. */
    declare public readonly notBefore: pulumi.Output<string>;

    constructor(name: string, args: EtcdCertificatesArgs, opts?: pulumi.CustomResourceOptions) {
        super(
            etcdCertificatesProvider,
            name,
            {
                ...args,
                caCrt: undefined,
                caKey: undefined,
                memberCrt: undefined,
                memberKey: undefined,
                clientCrt: undefined,
                clientKey: undefined,
                notBefore: undefined,
                notAfter: undefined,
            },
            { ...opts, additionalSecretOutputs: ["caKey", "memberKey", "clientKey"] },
            "kamino",
            "EtcdCertificates",
        );
    }
}
