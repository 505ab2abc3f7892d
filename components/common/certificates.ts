// The certificates Kamino issues itself (etcd's, ClusterMesh's CA): keys from Node's crypto, signed
// with node-forge, and when an `up` renews one.
import { generateKeyPairSync, randomBytes } from "crypto";

/**
 * An `up` replaces the certificate once less than this fraction of its life remains (four months
 * of a year), so that a stack brought up at least every few months never runs on an expired one.
 */
export const CERT_RENEW_FRACTION = 1 / 3;

/** True when a certificate that is valid until `notAfter` should be renewed at `now` (CERT_RENEW_FRACTION). */
export function certificateNeedsRenewal(notBefore: Date, notAfter: Date, now: Date): boolean {
    const life = notAfter.getTime() - notBefore.getTime();
    return notAfter.getTime() - now.getTime() < life * CERT_RENEW_FRACTION;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

export type Forge = typeof import("node-forge");
type ForgeCert = import("node-forge").pki.Certificate;

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const loadForge = () => require("node-forge") as Forge;

/** An RSA key from Node's crypto (native, fast), as node-forge's key pair (node-forge signs certificates; Node's crypto does not). */
export function newKeyPair(forge: Forge) {
    const { privateKey } = generateKeyPairSync("rsa", {
        modulusLength: 2048,
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const key = forge.pki.privateKeyFromPem(privateKey);
    return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

/** A certificate for `publicKey` named `commonName`, valid `years` from `from`; unsigned. */
export function newCertificate(forge: Forge, publicKey: import("node-forge").pki.PublicKey, commonName: string, from: Date, years: number): ForgeCert {
    const cert = forge.pki.createCertificate();
    cert.publicKey = publicKey;
    cert.serialNumber = "01" + randomBytes(15).toString("hex"); // positive, unique
    cert.validity.notBefore = from;
    cert.validity.notAfter = new Date(from.getTime() + years * YEAR_MS);
    cert.setSubject([{ name: "commonName", value: commonName }]);
    return cert;
}

/** A new self-signed CA named `commonName`, valid `years` from `now`: PEMs of its certificate and key. */
export function issueCa(commonName: string, years: number, now: Date): { caCrt: string; caKey: string } {
    const forge = loadForge();
    const keys = newKeyPair(forge);
    const ca = newCertificate(forge, keys.publicKey, commonName, now, years);
    ca.setIssuer(ca.subject.attributes);
    ca.setExtensions([
        { name: "basicConstraints", cA: true, critical: true },
        { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
        { name: "subjectKeyIdentifier" },
    ]);
    ca.sign(keys.privateKey, forge.md.sha256.create());
    return { caCrt: forge.pki.certificateToPem(ca), caKey: forge.pki.privateKeyToPem(keys.privateKey) };
}
