// The drills' API prober, its pure parts (test/cluster/api-prober.ts): the longest gap between two
// answered calls, each run of refused calls, a refusal named by what the API said, and the spells of
// an APIService not Available.
import { httpError, longestGap, outages, Probe, UnavailableSpells } from "../cluster/api-prober";

const ok = (at: number): Probe => ({ at, ok: true });
const refused = (at: number, error = "HTTP 503"): Probe => ({ at, ok: false, error });

test("the longest gap runs from one answered call to the next, the start and the end counting as answered", () => {
    expect(longestGap([ok(200), refused(400), refused(600), ok(3200), ok(3400)], 3600)).toBe(3);
    expect(longestGap([refused(0), refused(200)], 5000)).toBe(5);
    expect(longestGap([ok(1000)], 1200)).toBe(1);
});

test("each run of refused calls is one outage, from its first call to the next answer, with its first error", () => {
    const probes = [ok(0), refused(200, "HTTP 429: storage is (re)initializing"), refused(400), ok(600), refused(800, "timeout")];
    expect(outages(probes, 1000)).toEqual(["0.2-0.6 s: HTTP 429: storage is (re)initializing (2 calls)", "0.8-1.0 s: timeout (1 calls)"]);
});

test("a refusal says what the API's Status said, or its code when the body is not one", () => {
    const status = JSON.stringify({ kind: "Status", code: 429, message: "storage is (re)initializing", reason: "TooManyRequests" });
    expect(httpError(429, status)).toBe("HTTP 429: storage is (re)initializing");
    expect(httpError(503, "<html>bad gateway</html>")).toBe("HTTP 503");
    expect(httpError(500, JSON.stringify({ message: "x".repeat(300) }))).toHaveLength("HTTP 500: ".length + 100);
});

test("an APIService's spells not Available: from its transition, to the last reading that saw it; a failed read ends none", () => {
    const t0 = Date.parse("2026-12-06T10:00:00Z");
    const at = (s: number) => t0 + s * 1000;
    const down = (since: string, reason = "FailedDiscoveryCheck") => ({ status: "False", reason, lastTransitionTime: `2026-12-06T10:00:${since}Z` });
    const spells = new UnavailableSpells(t0);
    spells.see({ status: "True" }, at(1));
    spells.see(down("02"), at(3.5)); // seen late: the spell starts at its transition
    spells.see(undefined, at(4)); // the read failed
    spells.see(down("02"), at(6.2));
    spells.see({ status: "True" }, at(7));
    spells.see(down("09", "MissingEndpoints"), at(9.3));
    spells.see(down("11", "MissingEndpoints"), at(11.4)); // the same reason, a new transition: a new spell
    expect(spells.end()).toEqual(["False FailedDiscoveryCheck 2.0-6.2 s", "False MissingEndpoints 9.0-9.3 s", "False MissingEndpoints 11.0-11.4 s"]);
    expect(new UnavailableSpells(t0).end()).toEqual([]);
});
