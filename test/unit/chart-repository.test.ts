// Karmada's chart must be listed by its repository before anything is made (checks/chart-repository.ts):
// the index read and its versions ordered, each refusal naming the key, the value and the newest
// versions; then the real fetch against a repository served on loopback.
import { ChildProcess, spawn } from "child_process";
import * as net from "net";
import { checkChartListed, fetchTextSync, indexUrl, listedVersions, TextFetcher } from "../../components/checks/chart-repository";
import { preflight, preflightPlan } from "../../components/checks/preflight";
import { loadFleetConfig, resolveFleetPlan } from "../../components/config";
import { FIXTURE_CHART, stackConfig } from "../support/mocks";
import { chartIndex, healthyMachine, LISTED_KARMADA_VERSIONS } from "../support/standins";

const UPSTREAM = "https://raw.githubusercontent.com/karmada-io/karmada/master/charts";
const serving =
    (body: string, status = 200): TextFetcher =>
    () => ({ status, body });

describe("the index", () => {
    test("its URL is index.yaml under the repository, with or without a trailing slash", () => {
        expect(indexUrl(UPSTREAM)).toBe(`${UPSTREAM}/index.yaml`);
        expect(indexUrl("http://127.0.0.1:8080/charts/")).toBe("http://127.0.0.1:8080/charts/index.yaml");
    });
    test("a chart's versions, newest first by version, not by the order listed; another chart's are not its", () => {
        const text = chartIndex("karmada", ["v1.9.0", "v1.18.1", "v1.10.2", "v1.18.0"]) + "  other:\n  - name: other\n    version: v9.0.0\n";
        expect(listedVersions(text, "karmada")).toEqual(["v1.18.1", "v1.18.0", "v1.10.2", "v1.9.0"]);
        expect(listedVersions(text, "missing")).toEqual([]);
        expect(listedVersions("<html>not found</html>", "karmada")).toBeUndefined();
        expect(listedVersions("entries: [", "karmada")).toBeUndefined();
    });
});

describe("the check", () => {
    const source = { repo: UPSTREAM, chart: "karmada", version: "v1.18.1" };
    test("a listed version passes, having read the repository's index once", () => {
        const urls: string[] = [];
        expect(checkChartListed((u) => (urls.push(u), { status: 200, body: chartIndex("karmada", LISTED_KARMADA_VERSIONS) }), source)).toEqual([]);
        expect(urls).toEqual([`${UPSTREAM}/index.yaml`]);
    });
    test("a version the repository does not list (v1.18.2, as upstream's index lagged): the key, the value, the newest five, the fix", () => {
        expect(checkChartListed(serving(chartIndex("karmada", LISTED_KARMADA_VERSIONS)), { ...source, version: "v1.18.2" })).toEqual([
            {
                check: "karmada-chart",
                message: `kamino:karmada.chartVersion is v1.18.2, which the chart repository ${UPSTREAM} does not list (its newest: v1.18.1, v1.18.0, v1.17.0, v1.16.0, v1.15.0)`,
                fix: "pulumi config set --path kamino:karmada.chartVersion v1.18.1, or set kamino:karmada.chartRepo to a repository that has v1.18.2",
            },
        ]);
    });
    test.each<[string, TextFetcher, RegExp]>([
        [
            "unreachable",
            () => ({ error: "getaddrinfo ENOTFOUND raw.githubusercontent.com" }),
            /^cannot read .*index\.yaml \(kamino:karmada\.chartRepo\) .*ENOTFOUND/,
        ],
        ["not a repository", serving("no", 404), /answered HTTP 404, not a Helm chart repository's index/],
        ["an index of other charts", serving(chartIndex("cilium", ["1.18.0"])), /has no chart 'karmada'/],
        ["not an index", serving("<html></html>"), /is not a Helm repository index/],
    ])("%s: one problem naming the repository key", (_what, fetch, message) => {
        const [p, ...rest] = checkChartListed(fetch, source);
        expect(rest).toEqual([]);
        expect(p.check).toBe("karmada-chart");
        expect(p.message).toMatch(message);
        expect(p.fix).toContain("kamino:karmada.chartRepo");
    });
    test("an OCI registry has no index to read: nothing is fetched", () => {
        expect(checkChartListed(() => ({ error: "must not be called" }), { ...source, repo: "oci://registry.example.com/karmada" })).toEqual([]);
    });
});

describe("in preflight", () => {
    const dev = (karmada: Record<string, unknown> = {}) =>
        resolveFleetPlan(loadFleetConfig(stackConfig("Pulumi.dev.yaml", { "kamino:iko": { chartPath: FIXTURE_CHART }, "kamino:karmada": karmada })));
    test("up reads the index of the chart Kamino installs; a preview reaches no network", () => {
        const calls: string[] = [];
        const plan = preflightPlan(dev());
        expect(plan.karmadaChart).toEqual({ repo: UPSTREAM, chart: "karmada", version: "v1.18.1" });
        expect(preflight(plan, healthyMachine(calls), { dryRun: true })).toEqual([]);
        expect(calls).toEqual([]);
        expect(preflight(plan, healthyMachine(calls), { dryRun: false })).toEqual([]);
        expect(calls).toContain(`GET ${UPSTREAM}/index.yaml`);
    });
    test("the dev stack told v1.18.2 stops before anything is made", () => {
        const problems = preflight(preflightPlan(dev({ chartVersion: "v1.18.2" })), healthyMachine(), { dryRun: false });
        expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/^kamino:karmada\.chartVersion is v1\.18\.2, which the chart repository/)]);
    });
    test("an existing Karmada has no chart to look for", () => {
        expect(preflightPlan(dev({ existingKubeconfigPath: "k.kubeconfig" })).karmadaChart).toBeUndefined();
    });
});

describe("the real fetch", () => {
    // The repository is another process: the fetch blocks this one until it has its answer.
    let server: ChildProcess;
    let base: string;
    beforeAll(async () => {
        const index = JSON.stringify(chartIndex("karmada", ["v1.18.1"]));
        server = spawn(process.execPath, [
            "-e",
            `const s=require("http").createServer((q,r)=>{if(q.url==="/charts/index.yaml")r.end(${index});else{r.statusCode=404;r.end("not found");}});` +
                `s.listen(0,"127.0.0.1",()=>console.log(s.address().port));`,
        ]);
        const port = await new Promise<string>((resolve) => server.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
        base = `http://127.0.0.1:${port}`;
    });
    afterAll(() => server.kill());

    test("reads an index over HTTP, and says why when nothing answers", () => {
        expect(checkChartListed(fetchTextSync, { repo: `${base}/charts`, chart: "karmada", version: "v1.18.1" })).toEqual([]);
        expect(fetchTextSync(`${base}/nothing`)).toEqual({ status: 404, body: "not found" });
    });
    test("a repository that does not answer: the reason, not a hang", async () => {
        const probe = net.createServer();
        await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
        const port = (probe.address() as net.AddressInfo).port;
        await new Promise((r) => probe.close(r));
        expect(fetchTextSync(`http://127.0.0.1:${port}/index.yaml`)).toEqual({ error: expect.stringMatching(/ECONNREFUSED/) });
    });
});
