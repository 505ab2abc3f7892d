// A Helm chart repository on loopback, standing in for the ones no machine here reaches: an HTTP
// server over upstream's packaged charts in ../shared/charts (read in place, never copied), with an
// index.yaml written here from each archive's own Chart.yaml, digest included, as `helm repo index`
// writes it. A stack points at it through its own keys (`kamino:karmada.chartRepo`), as a user
// points at Karmada's repository.
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import * as YAML from "yaml";
import { REPO_ROOT } from "./binaries";
import { LOOPBACK, PortAllocator } from "./ports";

/** Where upstream's packaged charts are: `../shared/charts` beside the repository, as in CI. */
export const SHARED_CHARTS_DIR = path.resolve(REPO_ROOT, "../shared/charts");

/** One chart archive as the index lists it. */
export interface ChartEntry {
    /** The archive's file name in the charts folder. */
    file: string;
    /** Its Chart.yaml, as packaged. */
    chart: Record<string, unknown> & { name: string; version: string };
    /** sha256 of the archive, hex. */
    digest: string;
}

/** Reads the Chart.yaml inside a packaged chart (`<name>/Chart.yaml` at the archive's top). */
export function packagedChart(archive: string): ChartEntry["chart"] {
    const names = execFileSync("tar", ["-tzf", archive], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).split("\n");
    const chartYaml = names.find((n) => /^[^/]+\/Chart\.yaml$/.test(n));
    if (!chartYaml) throw new Error(`${archive} is not a packaged Helm chart: no <name>/Chart.yaml at its top`);
    return YAML.parse(execFileSync("tar", ["-xzOf", archive, chartYaml], { encoding: "utf8" }));
}

/** Every packaged chart in `dir`. Fails naming the folder when it has none: a test that needs it must not pass without it. */
export function chartEntries(dir = SHARED_CHARTS_DIR): ChartEntry[] {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".tgz")) : [];
    if (files.length === 0)
        throw new Error(`no packaged charts in ${dir}: the chart tests read upstream's charts there (../shared/charts beside the repository)`);
    return files.sort().map((file) => {
        const archive = path.join(dir, file);
        return { file, chart: packagedChart(archive), digest: crypto.createHash("sha256").update(fs.readFileSync(archive)).digest("hex") };
    });
}

/** A repository's index.yaml for `entries`, each archive at `<baseUrl>/<file>`. */
export function repositoryIndex(entries: ChartEntry[], baseUrl: string, generated = new Date(0)): string {
    const byName: Record<string, unknown[]> = {};
    for (const e of entries) {
        (byName[e.chart.name] ??= []).push({ ...e.chart, digest: e.digest, urls: [`${baseUrl}/${e.file}`], created: generated.toISOString() });
    }
    return YAML.stringify({ apiVersion: "v1", entries: byName, generated: generated.toISOString() });
}

/** The repository's server. */
export class ChartRepository {
    private server?: http.Server;
    private index = "";
    private entries: ChartEntry[] = [];
    /** Paths requested, in order (`/index.yaml`, `/karmada-chart-v1.18.1.tgz`, ...). */
    readonly requests: string[] = [];
    port = 0;

    constructor(
        /** The folder of packaged charts it serves. */
        readonly dir = SHARED_CHARTS_DIR,
        /** Where it listens. */
        readonly address = LOOPBACK,
    ) {}

    /** Its URL, as `kamino:karmada.chartRepo` takes it. */
    get url(): string {
        return `http://${this.address}:${this.port}`;
    }

    /** The versions it lists of a chart. */
    versions(chart: string): string[] {
        return this.entries.filter((e) => e.chart.name === chart).map((e) => e.chart.version);
    }

    async start(port?: number): Promise<this> {
        this.port = port ?? (await new PortAllocator().next());
        this.entries = chartEntries(this.dir);
        this.index = repositoryIndex(this.entries, this.url);
        const files = new Set(this.entries.map((e) => e.file));
        this.server = http.createServer((req, res) => {
            const name = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+/, "");
            this.requests.push(`/${name}`);
            if (name === "index.yaml") {
                res.writeHead(200, { "content-type": "application/x-yaml" }).end(this.index);
            } else if (files.has(name)) {
                res.writeHead(200, { "content-type": "application/gzip" });
                fs.createReadStream(path.join(this.dir, name)).pipe(res);
            } else {
                res.writeHead(404).end("not found\n");
            }
        });
        await new Promise<void>((resolve, reject) => {
            this.server!.once("error", reject);
            this.server!.listen({ host: this.address, port: this.port, exclusive: true }, resolve);
        });
        return this;
    }

    async stop(): Promise<void> {
        const server = this.server;
        this.server = undefined;
        if (server) await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
    }
}
