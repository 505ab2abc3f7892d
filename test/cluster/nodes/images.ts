// The images the real nodes run, each under the exact name a manifest references, assembled here
// from the toolchain's static Go binaries (and, for the test shell, this machine's Debian
// busybox-static and curl). Built once per process into a directory of archives (oci-image.ts).
import * as fs from "fs";
import * as path from "path";
import { DEFAULTS } from "../../../components/config";
import { ETCD_IMAGE } from "../../../components/karmada/control-plane/etcd-cluster";
import { buildImageArchive, debianBinaryFiles, ImageFile, ImageSpec } from "./oci-image";
import { PAUSE_IMAGE } from "./node-config";

/** CoreDNS as the toolchain builds it (toolchain/modules/coredns). */
export const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.14.7";
/**
 * A small image with a shell, curl and busybox's tools, for test pods that play a chart's Jobs
 * and init containers. The name is the harness's own: nothing outside the tests references it.
 */
export const SHELL_IMAGE = "kamino.invalid/test-shell:1";
/** Busybox applets the shell image links. */
const BUSYBOX_APPLETS = [
    "sh",
    "cat",
    "echo",
    "env",
    "ls",
    "nc",
    "nslookup",
    "sleep",
    "test",
    "wget",
    "grep",
    "true",
    "false",
    "hostname",
    "date",
    "httpd",
    "sed",
    "wc",
    "tr",
    "base64",
    "cp",
    "rm",
    "head",
    "tail",
    "tar",
    "mkdir",
    "ps",
];

/**
 * A stand-in for an IRIS container, for the promotion's exec test: busybox and an `iris` script that
 * plays `iris session IRIS -U %SYS` as far as Kamino's sessions need (test/cluster/mirror-promote-pod.test.ts).
 */
export const IRIS_STANDIN_IMAGE = "kamino.invalid/iris-standin:1";

/**
 * The stand-in `iris`: records each session's arguments and stdin in /irissys/sessions.log, keeps a
 * mirror status in /irissys/status (CONNECTED, as a DR async; PRIMARY after PromoteWithNoPartner(),
 * BACKUP after Promote(), PRIMARY once /irissys/pair-gone is not empty), prints a banner and prompts as a terminal does, and answers only the
 * lines that write Kamino's markers. It ends at `halt`, as IRIS does.
 */
export const IRIS_STANDIN_SCRIPT = `#!/bin/sh
dir=/irissys
mkdir -p $dir
[ -f $dir/status ] || echo CONNECTED > $dir/status
echo "--- iris $*" >> $dir/sessions.log
printf '\nNode: %s, Instance: IRIS\n\n%%SYS>' "$(hostname)"
ok=0
while IFS= read -r line; do
    echo "$line" >> $dir/sessions.log
    case "$line" in
        *'SYS.Mirror).PromoteWithNoPartner()'*) echo PRIMARY > $dir/status; ok=1 ;;
        *'SYS.Mirror).Promote()'*) echo BACKUP > $dir/status; ok=1 ;;
        *KAMINO-RESULT*) printf 'KAMINO-RESULT:%s\n%%SYS>' "$ok" ;;
        *GetStatus*)
            # A BACKUP takes over once its primary is gone (the test marks the pair withdrawn in pair-gone).
            if [ "$(cat $dir/status)" = BACKUP ] && [ -s $dir/pair-gone ]; then echo PRIMARY > $dir/status; fi
            printf 'KAMINO-STATUS:%s\n%%SYS>' "$(cat $dir/status)" ;;
        halt) exit 0 ;;
    esac
done
exit 0
`;

/** Where each binary an image holds is. */
export interface ImageBinaries {
    pause: string;
    coredns: string;
    etcd: string;
    etcdctl: string;
    etcdutl: string;
    "karmada-agent": string;
}

/** The Karmada version the toolchain builds (toolchain/versions.env), which Kamino's default chart starts. */
export const KARMADA_VERSION = DEFAULTS.karmadaChartVersion;

const bin = (name: string, source: string): ImageFile => ({ target: `/usr/local/bin/${name}`, source });
/** busybox's applets a Job's script calls besides its own programs. */
const busybox = (): ImageFile[] => [
    { target: "/bin/busybox", source: "/bin/busybox" },
    ...BUSYBOX_APPLETS.map((a) => ({ target: `/bin/${a}`, symlink: "busybox" })),
];

/** The images of the real-node tests. `agentImage` is the name Kamino's Pull members reference. */
export function imageSpecs(bins: ImageBinaries, agentImage = `${DEFAULTS.karmadaAgentImage}:${KARMADA_VERSION}`): ImageSpec[] {
    return [
        { name: PAUSE_IMAGE, files: [{ target: "/pause", source: bins.pause }], entrypoint: ["/pause"], user: "65535:65535" },
        { name: COREDNS_IMAGE, files: [{ target: "/coredns", source: bins.coredns }], entrypoint: ["/coredns"] },
        // As registry.k8s.io/etcd: the three programs on PATH, no entrypoint (the manifest's command runs).
        { name: ETCD_IMAGE, files: [bin("etcd", bins.etcd), bin("etcdctl", bins.etcdctl), bin("etcdutl", bins.etcdutl)] },
        // As Karmada's images: the program in /bin (Kamino's Deployment runs `/bin/karmada-agent`, as the chart's does).
        { name: agentImage, files: [{ target: "/bin/karmada-agent", source: bins["karmada-agent"] }], entrypoint: ["/bin/karmada-agent"] },
        {
            name: SHELL_IMAGE,
            files: [
                ...busybox(),
                ...debianBinaryFiles("/usr/bin/curl"),
                { target: "/etc/passwd", contents: "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n" },
                { target: "/etc/group", contents: "root:x:0:\nnogroup:x:65534:\n" },
            ],
            entrypoint: ["/bin/sh"],
        },
        {
            name: IRIS_STANDIN_IMAGE,
            files: [...busybox(), { target: "/usr/local/bin/iris", contents: IRIS_STANDIN_SCRIPT, mode: 0o755 }],
            entrypoint: ["/bin/sh"],
        },
    ];
}

/** The Karmada components the chart starts (`docker.io/karmada/karmada-<c>`), each one program in /bin. */
export const KARMADA_CHART_COMPONENTS = ["aggregated-apiserver", "controller-manager", "scheduler", "webhook"] as const;

/** Where each binary of the chart's images is: Karmada's components at one version, Kubernetes', and its Jobs' programs. */
export type ChartImageBinaries = Record<
    `karmada-${(typeof KARMADA_CHART_COMPONENTS)[number]}` | "kube-apiserver" | "kube-controller-manager" | "kubectl" | "cfssl" | "cfssljson",
    string
>;

/** The images of the chart's Jobs and `wait` init containers: its certificate Job's (cfssl) and the others' (kubectl). */
export const CHART_JOB_IMAGES = ["docker.io/cfssl/cfssl:latest", `docker.io/${DEFAULTS.karmadaKubectlImage}:latest`];

/** The images Karmada's chart references with Kamino's values (test/engine/karmada-chart.test.ts renders the chart to check it), at `version`. */
export function chartImageSpecs(bins: ChartImageBinaries, version: string = KARMADA_VERSION): ImageSpec[] {
    const jobShell = [...busybox(), ...debianBinaryFiles("/bin/bash"), { target: "/etc/passwd", contents: "root:x:0:0:root:/root:/bin/sh\n" }];
    return [
        // As Karmada's images: the program in /bin, where the chart's command names it.
        ...KARMADA_CHART_COMPONENTS.map((c) => ({
            name: `docker.io/karmada/karmada-${c}:${version}`,
            files: [{ target: `/bin/karmada-${c}`, source: bins[`karmada-${c}`] }],
            entrypoint: [`/bin/karmada-${c}`],
        })),
        // As registry.k8s.io's: distroless, the program on PATH (the chart's command is `kube-apiserver`).
        { name: `registry.k8s.io/kube-apiserver:${DEFAULTS.karmadaKubeImageTag}`, files: [bin("kube-apiserver", bins["kube-apiserver"])] },
        {
            name: `registry.k8s.io/kube-controller-manager:${DEFAULTS.karmadaKubeImageTag}`,
            files: [bin("kube-controller-manager", bins["kube-controller-manager"])],
        },
        // The certificate Job and the components' `wait` init container: bash, openssl (and its config), cfssl, curl.
        {
            name: CHART_JOB_IMAGES[0],
            files: [
                ...jobShell,
                ...debianBinaryFiles("/usr/bin/openssl"),
                { target: "/usr/lib/ssl/openssl.cnf", source: fs.realpathSync("/usr/lib/ssl/openssl.cnf") },
                ...debianBinaryFiles("/usr/bin/curl"),
                bin("cfssl", bins.cfssl),
                bin("cfssljson", bins.cfssljson),
            ],
            entrypoint: ["cfssl"],
        },
        // The other Jobs: bash and kubectl (apply -k is kubectl's own kustomize).
        {
            name: CHART_JOB_IMAGES[1],
            files: [...jobShell, bin("kubectl", bins.kubectl)],
            entrypoint: ["kubectl"],
            env: ["HOME=/tmp"],
        },
    ];
}

/**
 * Builds every image into `dir` (once per run: the test files of a run share it); returns the archives.
 * Each process builds in a scratch directory of its own and renames the archive into place, so two
 * jest workers building at once never see each other's half-written files.
 */
export function buildImages(dir: string, specs: ImageSpec[]): string[] {
    fs.mkdirSync(dir, { recursive: true });
    return specs.map((s) => {
        const archive = path.join(dir, `${s.name.replace(/[^A-Za-z0-9.-]+/g, "_")}.tar`);
        if (!fs.existsSync(archive)) {
            const partial = `${archive}.${process.pid}.partial`;
            buildImageArchive(s, partial, path.join(dir, `.work-${process.pid}`));
            fs.renameSync(partial, archive);
        }
        return archive;
    });
}
