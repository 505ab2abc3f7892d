// Certificates for the loopback fleet, made with the `openssl` command-line tool (Debian's
// package), so that the harness needs no npm dependency for X.509. Keys are ECDSA P-256: quick to
// generate on a small machine and accepted by every Go and Node TLS stack involved.
import { execFile } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";

/** A key pair on disk, PEM encoded (PKCS#8 private key). */
export interface KeyFiles {
    key: string;
}

/** A certificate and its key on disk. */
export interface CertFiles extends KeyFiles {
    cert: string;
}

/** A certificate authority on disk. */
export type CaFiles = CertFiles;

/** A key pair for signing service-account tokens. */
export interface SigningKeyFiles extends KeyFiles {
    /** The public key (PEM, SubjectPublicKeyInfo). */
    pub: string;
}

/** What a leaf certificate is for and whom it names. */
export interface LeafSpec {
    /** Subject common name (for client certificates: the user name). */
    commonName: string;
    /** Subject organizations (for client certificates: the groups). */
    organizations?: string[];
    /** DNS names for the subjectAltName extension. */
    dnsNames?: string[];
    /** IP addresses for the subjectAltName extension. */
    ipAddresses?: string[];
    /** Extended key usages; default both server and client authentication. */
    usages?: ("serverAuth" | "clientAuth")[];
}

const run = (args: string[], cwd: string): Promise<void> =>
    new Promise((resolve, reject) => {
        execFile("openssl", args, { cwd, timeout: 30_000 }, (err, _stdout, stderr) => {
            if (!err) return resolve();
            const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
            reject(
                new Error(
                    missing
                        ? "the `openssl` command is not installed (Debian: apt-get install -y openssl)"
                        : `openssl ${args.join(" ")} failed: ${String(stderr).trim() || err.message}`,
                ),
            );
        });
    });

/** Subject in the `-subj` syntax; O before CN as Kubernetes tooling writes it. */
function subject(commonName: string, organizations: string[] = []): string {
    const esc = (v: string) => v.replace(/[\\/=+]/g, (c) => `\\${c}`);
    return organizations.map((o) => `/O=${esc(o)}`).join("") + `/CN=${esc(commonName)}`;
}

/** A positive random serial number (Go rejects negative and zero serials). */
const serial = () => `0x${crypto.randomBytes(15).toString("hex").replace(/^./, "1")}`;

/** Issues certificates into one directory. Names must be unique within it. */
export class CertificateFactory {
    constructor(readonly dir: string) {
        fs.mkdirSync(dir, { recursive: true });
    }

    private file(name: string): string {
        return path.join(this.dir, name);
    }

    /** A new ECDSA P-256 private key. */
    async key(name: string): Promise<KeyFiles> {
        const key = this.file(`${name}.key`);
        await run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key], this.dir);
        fs.chmodSync(key, 0o600);
        return { key };
    }

    /** A key pair for service-account token signing (private + public PEM). */
    async signingKey(name: string): Promise<SigningKeyFiles> {
        const { key } = await this.key(name);
        const pub = this.file(`${name}.pub`);
        await run(["pkey", "-in", key, "-pubout", "-out", pub], this.dir);
        return { key, pub };
    }

    /** Writes an openssl config whose [ext] section holds `ext`; returns its path. */
    private extensions(name: string, ext: string[]): string {
        const cnf = this.file(`${name}.cnf`);
        fs.writeFileSync(cnf, ["[req]", "distinguished_name = dn", "[dn]", "[ext]", ...ext, ""].join("\n"));
        return cnf;
    }

    /** A self-signed CA certificate, valid for ten years. */
    async ca(name: string, commonName: string): Promise<CaFiles> {
        const { key } = await this.key(name);
        const cert = this.file(`${name}.crt`);
        const cnf = this.extensions(name, [
            "basicConstraints = critical,CA:TRUE",
            "keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign,cRLSign",
            "subjectKeyIdentifier = hash",
        ]);
        await run(
            [
                "req",
                "-x509",
                "-new",
                "-key",
                key,
                "-config",
                cnf,
                "-extensions",
                "ext",
                "-subj",
                subject(commonName),
                "-days",
                "3650",
                "-set_serial",
                serial(),
                "-out",
                cert,
            ],
            this.dir,
        );
        return { key, cert };
    }

    /** A leaf certificate signed by `ca`, valid for one year. */
    async leaf(name: string, ca: CaFiles, spec: LeafSpec): Promise<CertFiles> {
        const { key } = await this.key(name);
        const cert = this.file(`${name}.crt`);
        const csr = this.file(`${name}.csr`);
        const sans = [...(spec.dnsNames ?? []).map((d) => `DNS:${d}`), ...(spec.ipAddresses ?? []).map((ip) => `IP:${ip}`)];
        const cnf = this.extensions(name, [
            "basicConstraints = critical,CA:FALSE",
            "keyUsage = critical,digitalSignature,keyEncipherment",
            `extendedKeyUsage = ${(spec.usages ?? ["serverAuth", "clientAuth"]).join(",")}`,
            "subjectKeyIdentifier = hash",
            "authorityKeyIdentifier = keyid",
            ...(sans.length ? [`subjectAltName = ${sans.join(",")}`] : []),
        ]);
        await run(["req", "-new", "-key", key, "-config", cnf, "-subj", subject(spec.commonName, spec.organizations), "-out", csr], this.dir);
        await run(
            [
                "x509",
                "-req",
                "-in",
                csr,
                "-CA",
                ca.cert,
                "-CAkey",
                ca.key,
                "-set_serial",
                serial(),
                "-days",
                "365",
                "-extfile",
                cnf,
                "-extensions",
                "ext",
                "-out",
                cert,
            ],
            this.dir,
        );
        fs.rmSync(csr);
        return { key, cert };
    }
}
