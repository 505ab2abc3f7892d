// Failure detection: the one knob (kamino:karmada.failureDetectionSeconds) and the flags it becomes,
// for karmada-controller-manager and for the Pull members' agents.
import { ConfigError, DEFAULTS, loadFleetConfig } from "../../components/config";
import { detectionFlags } from "../../components/karmada/failover/detection";
import { agentArgs } from "../../components/karmada/members/pull-agent";
import { detectionMismatches, failoverReadiness } from "../../components/checks/failover-readiness";

const secs = (v: string) => Number(/^(\d+)s$/.exec(v)![1]);

describe("detectionFlags", () => {
    test("Kamino's default: a probe every 3 s, not Ready after 9 s of failures, Ready again at the first answer; the Lease renewed every 3 s, Unknown after 10 s of silence", () => {
        expect(DEFAULTS.failureDetectionSeconds).toBe(12);
        expect(detectionFlags(12)).toEqual({
            controllerManager: {
                "cluster-status-update-frequency": "3s",
                "cluster-failure-threshold": "9s",
                "cluster-success-threshold": "0s",
                "cluster-monitor-period": "2s",
                "cluster-monitor-grace-period": "10s",
                "rate-limiter-max-delay": "10s",
            },
            agent: {
                "cluster-status-update-frequency": "3s",
                "cluster-failure-threshold": "9s",
                "cluster-success-threshold": "0s",
                "cluster-lease-duration": "12s",
                "cluster-lease-renew-interval-fraction": "0.25",
                "rate-limiter-max-delay": "10s",
            },
        });
    });

    test.each([8, 10, 12, 15, 20, 30, 40, 60, 120, 300])("at %i s every path detects within the time, and a live member is never given up on", (s) => {
        const { controllerManager: cm, agent } = detectionFlags(s);
        // Probing: the first failed probe comes within one interval, Ready turns False after the threshold.
        expect(secs(cm["cluster-status-update-frequency"]) + secs(cm["cluster-failure-threshold"])).toBe(s);
        expect(agent["cluster-failure-threshold"]).toBe(cm["cluster-failure-threshold"]);
        // A 5 s blink stays under the failure threshold.
        expect(secs(cm["cluster-failure-threshold"])).toBeGreaterThan(5);
        // A member that answers again is Ready at once, for Karmada's probes and its agent's alike:
        // any success threshold would be taken off every IrisCluster's toleration.
        expect([cm["cluster-success-threshold"], agent["cluster-success-threshold"]]).toEqual(["0s", "0s"]);
        // Lease: the grace period outlasts a renewal plus a monitor period (notes §9a), and ends within the time.
        const renew = secs(agent["cluster-lease-duration"]) * Number(agent["cluster-lease-renew-interval-fraction"]);
        expect(secs(cm["cluster-monitor-grace-period"])).toBeGreaterThan(renew + secs(cm["cluster-monitor-period"]));
        expect(secs(cm["cluster-monitor-grace-period"]) + secs(cm["cluster-monitor-period"])).toBe(s);
    });

    test("the agent runs with them", () => {
        expect(agentArgs({ clusterName: "m", apiEndpoint: "https://m", detection: detectionFlags(12).agent })).toEqual(
            expect.arrayContaining(["--cluster-status-update-frequency=3s", "--cluster-failure-threshold=9s", "--cluster-lease-duration=12s"]),
        );
    });
});

describe("kamino:karmada.failureDetectionSeconds", () => {
    const base = {
        clusters: [
            { name: "hub", provider: "kind", karmadaHost: true },
            { name: "m1", provider: "kind" },
        ],
        iko: { chartPath: "./chart" },
    };
    const errorOf = (karmada: Record<string, unknown>) => {
        try {
            loadFleetConfig(Object.fromEntries(Object.entries({ ...base, karmada }).map(([k, v]) => [`kamino:${k}`, JSON.stringify(v)])), {
                pathExists: () => true,
            });
            return "";
        } catch (e) {
            if (e instanceof ConfigError) return e.message;
            throw e;
        }
    };
    test.each([
        [5, /failureDetectionSeconds = 5: must be at least 8 s; fix: use 8 or more/],
        [400, /failureDetectionSeconds = 400: must be at most 300 s; fix: use 300 or less/],
        [12.5, /failureDetectionSeconds = 12.5: must be a whole number of seconds; fix: round it/],
        ["12s", /failureDetectionSeconds = "12s": must be a number of seconds; fix: write it as a whole number/],
    ])("%p is refused before anything is created", (v, message) => expect(errorOf({ failureDetectionSeconds: v })).toMatch(message));
    test("12 by default, any whole number from 8 to 300 accepted", () => expect(errorOf({ failureDetectionSeconds: 30 })).toBe(""));
});

describe("an existing Karmada's detection flags", () => {
    const flags = detectionFlags(12).controllerManager;
    test("the chart's command line with Kamino's flags appended: nothing to say (the later flag wins)", () => {
        const chartLike = ["/bin/karmada-controller-manager", "--cluster-status-update-frequency=10s", ...Object.entries(flags).map(([k, v]) => `--${k}=${v}`)];
        expect(detectionMismatches(chartLike, flags)).toEqual([]);
    });
    test("Karmada's own defaults: every flag the knob needs is named", () => {
        expect(detectionMismatches(["/bin/karmada-controller-manager", "--cluster-status-update-frequency=10s"], flags)).toEqual([
            "--cluster-status-update-frequency=3s",
            "--cluster-failure-threshold=9s",
            "--cluster-success-threshold=0s",
            "--cluster-monitor-period=2s",
            "--cluster-monitor-grace-period=10s",
            "--rate-limiter-max-delay=10s",
        ]);
    });
    test("failover readiness notes it without refusing", async () => {
        const probe = {
            dryRunTaintPolicy: async () => ({ status: 201, body: "{}" }),
            controllerManagerCommand: async () => [
                "/bin/karmada-controller-manager",
                "--feature-gates=Failover=true",
                "--enable-no-execute-taint-eviction=true",
            ],
            controllerManagerImage: async () => undefined,
        };
        const { problems, notes } = await failoverReadiness(probe, flags);
        expect(problems).toEqual([]);
        expect(notes).toEqual([
            expect.stringMatching(/does not run with the failure detection of kamino:karmada.failureDetectionSeconds \(--cluster-status-update-frequency=3s/),
            expect.stringMatching(/does not run with --cluster-success-threshold=0s: a Push member that answers again .* stays not Ready/),
        ]);
        // The detection note does not name the return flag: each says what it changes.
        expect(notes[0]).not.toContain("success-threshold");
    });
});
