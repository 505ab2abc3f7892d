// Container images assembled on this machine, since no registry can be reached: a root filesystem
// (files copied from the toolchain's static Go binaries or from this machine's Debian packages) is
// written as one uncompressed layer into an OCI image layout, a tar archive that `ctr images import`
// takes under the exact name a manifest references (the `io.containerd.image.name` annotation).
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";

/** One file of an image's root filesystem. */
export interface ImageFile {
    /** Absolute path inside the image, e.g. `/usr/local/bin/etcd`. */
    target: string;
    /** A file on this machine to copy; its mode is kept. */
    source?: string;
    /** Or the file's contents. */
    contents?: string;
    /** Or a symbolic link to this path. */
    symlink?: string;
    /** Mode of a `contents` file; default 0644. */
    mode?: number;
}

/** What an image is. */
export interface ImageSpec {
    /** Full reference as manifests name it, e.g. `registry.k8s.io/etcd:3.6.14-0`. */
    name: string;
    files: ImageFile[];
    /** The image config's Entrypoint (a pod's `command` replaces it). */
    entrypoint?: string[];
    /** The image config's Cmd. */
    cmd?: string[];
    /** The image config's user, e.g. `65532:65532`. */
    user?: string;
    /** Extra environment; PATH is always set. */
    env?: string[];
}

const sha256 = (data: Buffer | string) => crypto.createHash("sha256").update(data).digest("hex");

/** Writes `blob` into the layout's blob store; returns its descriptor fields. */
function putBlob(layout: string, data: Buffer): { digest: string; size: number } {
    const hex = sha256(data);
    fs.writeFileSync(path.join(layout, "blobs", "sha256", hex), data);
    return { digest: `sha256:${hex}`, size: data.length };
}

/** Lays out the root filesystem in `rootfs` (which must not exist yet). */
function writeRootfs(rootfs: string, files: ImageFile[]): void {
    fs.mkdirSync(rootfs, { recursive: true });
    for (const f of files) {
        if (!path.isAbsolute(f.target)) throw new Error(`image file target must be absolute, got ${f.target}`);
        const dest = path.join(rootfs, f.target);
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        if (f.symlink !== undefined) fs.symlinkSync(f.symlink, dest);
        else if (f.source !== undefined) (fs.copyFileSync(f.source, dest), fs.chmodSync(dest, fs.statSync(f.source).mode & 0o7777));
        else fs.writeFileSync(dest, f.contents ?? "", { mode: f.mode ?? 0o644 });
    }
    // What every container runtime expects to be able to mount over.
    for (const d of ["tmp", "etc", "proc", "sys", "dev", "var/run"]) fs.mkdirSync(path.join(rootfs, d), { recursive: true });
    fs.chmodSync(path.join(rootfs, "tmp"), 0o1777);
}

/**
 * Builds `spec` as an OCI image layout archive at `archive` (`<work>` is scratch space, removed
 * after). The layer's tar is reproducible: sorted names, owner root, a fixed time.
 */
export function buildImageArchive(spec: ImageSpec, archive: string, work: string): void {
    const rootfs = path.join(work, "rootfs");
    const layout = path.join(work, "layout");
    fs.rmSync(work, { recursive: true, force: true });
    writeRootfs(rootfs, spec.files);
    fs.mkdirSync(path.join(layout, "blobs", "sha256"), { recursive: true });
    const layerTar = path.join(work, "layer.tar");
    execFileSync("tar", ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-C", rootfs, "-cf", layerTar, "."]);
    const layer = putBlob(layout, fs.readFileSync(layerTar));
    const config = putBlob(
        layout,
        Buffer.from(
            JSON.stringify({
                architecture: "amd64",
                os: "linux",
                config: {
                    Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", ...(spec.env ?? [])],
                    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
                    ...(spec.cmd ? { Cmd: spec.cmd } : {}),
                    ...(spec.user ? { User: spec.user } : {}),
                },
                rootfs: { type: "layers", diff_ids: [layer.digest] },
            }),
        ),
    );
    const manifest = putBlob(
        layout,
        Buffer.from(
            JSON.stringify({
                schemaVersion: 2,
                mediaType: "application/vnd.oci.image.manifest.v1+json",
                config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
                layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", ...layer }],
            }),
        ),
    );
    fs.writeFileSync(path.join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    fs.writeFileSync(
        path.join(layout, "index.json"),
        JSON.stringify({
            schemaVersion: 2,
            manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", ...manifest, annotations: { "io.containerd.image.name": spec.name } }],
        }),
    );
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    execFileSync("tar", ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-C", layout, "-cf", archive, "."]);
    fs.rmSync(work, { recursive: true, force: true });
}

/**
 * The files that run `binary` from this machine's Debian packages inside an image: the binary, the
 * shared libraries `ldd` names and the dynamic loader, at the same paths.
 */
export function debianBinaryFiles(binary: string, target = binary): ImageFile[] {
    const out = execFileSync("ldd", [binary], { encoding: "utf8" });
    const libs = new Set<string>();
    for (const line of out.split("\n")) {
        const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
        if (m) libs.add(m[1]);
    }
    return [{ target, source: binary }, ...[...libs].map((lib) => ({ target: lib, source: fs.realpathSync(lib) }))];
}
