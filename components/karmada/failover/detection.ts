// How fast Karmada notices a lost member: `kamino:karmada.failureDetectionSeconds` turned into the
// flags of karmada-controller-manager and of the Pull members' agents. Pure; used by the chart
// values, the agent's Deployment, the loopback harness and the tests alike. What each flag does (as
// karmada-io/karmada@v1.18.2 has it, ../shared/notes/karmada.md §10):
//
//   Push member, or a Pull member whose API fails while its agent lives: a status probe every
//   `--cluster-status-update-frequency`; Ready turns False once the probes have failed for
//   `--cluster-failure-threshold` (the controller-manager's for Push, the agent's own for Pull).
//   Pull member whose agent (or its link to Karmada) dies: the agent renews its cluster Lease every
//   `--cluster-lease-duration` x `--cluster-lease-renew-interval-fraction`; the controller-manager looks
//   every `--cluster-monitor-period` and turns Ready Unknown once nothing was heard for
//   `--cluster-monitor-grace-period`.
//   A member that comes back: what Karmada could not do there meanwhile (remove the copy it moved
//   away) was retried with a delay that doubles each time, up to `--rate-limiter-max-delay` (16m40s
//   by default), so the stale copy ran on for as long as the last delay: 35 s after Ready after a
//   two-minute outage on the test fleet. Capped at RETRY_MAX_DELAY, it goes within that of Ready.

/** The flags for one detection time, as `--key=value` maps. */
export interface DetectionFlags {
    /** karmada-controller-manager (the chart's `controllerManager.extraCommandArgs`). */
    controllerManager: Record<string, string>;
    /** Each Pull member's karmada-agent. */
    agent: Record<string, string>;
}

/**
 * Flags that decide when a member that answers again is Ready (and Kamino's failover taint lifted),
 * which `up` notes apart on an existing Karmada: the guard of failoverAfterSeconds depends on them.
 */
export const RETURN_FLAGS = ["cluster-success-threshold"] as const;

/**
 * Ready again on the first probe that succeeds after a failure. Karmada's 30 s default kept a member
 * that answered again not Ready (and tainted) for 30 s, longer than any IrisCluster's toleration
 * (failoverAfterSeconds, 10 by default), so every outage Karmada detected moved the IrisCluster. The
 * threshold is per control plane and the toleration per IrisCluster; whatever it is, it is taken
 * off every IrisCluster's guard, so the one value that serves them all is none. Flapping is still
 * damped on the way down: a member is marked not Ready only after failing for the failure threshold.
 */
export const SUCCESS_THRESHOLD = "0s";

/** The longest Karmada waits before it retries what failed on a member (removing a stale copy, a failback). */
export const RETRY_MAX_DELAY = "10s";

/**
 * Flags under which a silent member is marked not Ready within about `seconds`: a probe every
 * quarter of it, failures for the rest; the Lease renewed every quarter, looked at every eighth,
 * and given up on after the rest. Short blips (an API server restarting for a few seconds) stay
 * under the failure threshold and change nothing.
 */
export function detectionFlags(seconds: number): DetectionFlags {
    const probe = Math.max(1, Math.round(seconds / 4));
    const monitor = Math.max(1, Math.round(seconds / 8));
    const threshold = seconds - probe;
    const grace = seconds - monitor;
    const s = (n: number) => `${n}s`;
    return {
        controllerManager: {
            "cluster-status-update-frequency": s(probe),
            "cluster-failure-threshold": s(threshold),
            "cluster-success-threshold": SUCCESS_THRESHOLD,
            "cluster-monitor-period": s(monitor),
            "cluster-monitor-grace-period": s(grace),
            "rate-limiter-max-delay": RETRY_MAX_DELAY,
        },
        agent: {
            "cluster-status-update-frequency": s(probe),
            "cluster-failure-threshold": s(threshold),
            "cluster-success-threshold": SUCCESS_THRESHOLD,
            "cluster-lease-duration": s(seconds),
            "cluster-lease-renew-interval-fraction": "0.25",
            "rate-limiter-max-delay": RETRY_MAX_DELAY,
        },
    };
}
