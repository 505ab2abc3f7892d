// The Karmada chart must exist before anything is made: `up` reads the chart repository's index.yaml
// and refuses a version it does not list. Karmada's index has lagged its releases for months at a
// time (v1.18.2 was tagged in July 2026 and still missing in August), and Helm's error for it,
// `chart "karmada" version "v1.18.2" not found`, came only after the clusters existed.
// Pure but for `fetchTextSync`, which preflight injects (tests give a fake or a loopback repository).
import { spawnSync } from "child_process";
import * as YAML from "yaml";
import { CONFIG_NAMESPACE } from "../config";
import type { PreflightProblem } from "./preflight";
import { compareVersions } from "./versions";

/** What a GET returned: the status and body, or why there was no answer. */
export type FetchResult = { status: number; body: string } | { error: string };

/** Reads a URL; synchronous, since the Pulumi program is synchronous up to the Fleet. */
export type TextFetcher = (url: string) => FetchResult;

/** The chart a stack installs from a repository. */
export interface ChartSource {
    /** The repository's URL (`kamino:karmada.chartRepo`). */
    repo: string;
    /** The chart's name in it. */
    chart: string;
    /** The version the stack asks for (`kamino:karmada.chartVersion`). */
    version: string;
}

/** How many of the newest listed versions a refusal names. */
const NEWEST_SHOWN = 5;

/** The index's URL: `index.yaml` under the repository, as Helm reads it. */
export const indexUrl = (repo: string) => `${repo.replace(/\/+$/, "")}/index.yaml`;

/** The versions of `chart` an index.yaml lists, newest first; undefined when the text is not an index. */
export function listedVersions(indexYaml: string, chart: string): string[] | undefined {
    let index: unknown;
    try {
        index = YAML.parse(indexYaml);
    } catch {
        return undefined;
    }
    const entries = (index as { entries?: Record<string, unknown> } | null)?.entries;
    if (typeof entries !== "object" || entries === null) return undefined;
    const list = (entries as Record<string, unknown>)[chart];
    const versions = Array.isArray(list) ? list.map((e) => (e as { version?: unknown })?.version).filter((v): v is string => typeof v === "string") : [];
    return versions.sort((a, b) => compareVersions(b, a));
}

/** The repository lists the stack's chart version; one problem naming the key, the value and the newest versions otherwise. */
export function checkChartListed(fetch: TextFetcher, source: ChartSource): PreflightProblem[] {
    const versionKey = `${CONFIG_NAMESPACE}:karmada.chartVersion`;
    const repoKey = `${CONFIG_NAMESPACE}:karmada.chartRepo`;
    // Helm reads an index only over http(s); an OCI registry (oci://) has none to read here.
    if (!/^https?:\/\//i.test(source.repo)) return [];
    const url = indexUrl(source.repo);
    const problem = (message: string, fix: string): PreflightProblem[] => [{ check: "karmada-chart", message, fix }];
    const answer = fetch(url);
    if ("error" in answer) {
        return problem(
            `cannot read ${url} (${repoKey}) to find Karmada's chart ${source.version}: ${answer.error}`,
            `check this machine's network (and HTTPS_PROXY), or set ${repoKey} to a chart repository it can reach`,
        );
    }
    if (answer.status !== 200) {
        return problem(`${url} (${repoKey}) answered HTTP ${answer.status}, not a Helm chart repository's index`, `check ${repoKey}`);
    }
    const versions = listedVersions(answer.body, source.chart);
    if (versions === undefined) return problem(`${url} (${repoKey}) is not a Helm repository index (no entries)`, `check ${repoKey}`);
    if (versions.includes(source.version)) return [];
    if (versions.length === 0) {
        return problem(`the chart repository ${source.repo} (${repoKey}) has no chart '${source.chart}'`, `point ${repoKey} at Karmada's chart repository`);
    }
    const newest = versions.slice(0, NEWEST_SHOWN);
    return problem(
        `${versionKey} is ${source.version}, which the chart repository ${source.repo} does not list (its newest: ${newest.join(", ")})`,
        `pulumi config set --path ${versionKey} ${newest[0]}, or set ${repoKey} to a repository that has ${source.version}`,
    );
}

// Node's own fetch in a child process: the program stays synchronous, and the answer is capped at 20 s.
const FETCH_SCRIPT =
    "fetch(process.argv[1],{signal:AbortSignal.timeout(20000)})" +
    ".then(async r=>process.stdout.write(JSON.stringify({status:r.status,body:await r.text()})))" +
    ".catch(e=>process.stdout.write(JSON.stringify({error:String((e&&e.cause&&e.cause.message)||(e&&e.message)||e)})));";

/** GETs a URL in a child node process; HTTPS_PROXY and NO_PROXY are honoured, as Helm honours them. */
export const fetchTextSync: TextFetcher = (url) => {
    const r = spawnSync(process.execPath, ["-e", FETCH_SCRIPT, url], {
        encoding: "utf8",
        timeout: 30_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NODE_USE_ENV_PROXY: "1" },
    });
    try {
        return JSON.parse(r.stdout ?? "") as FetchResult;
    } catch {
        return { error: (r.stderr ?? "").trim().split("\n")[0] || `the request ended without an answer (${r.error ?? r.signal ?? r.status})` };
    }
};
