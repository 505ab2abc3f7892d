// Version order for preflight: kind's release and Helm chart versions (`v1.18.1`), with pre-releases.

/** Compares dotted versions with an optional pre-release (`0.23.0-alpha` < `0.23.0`). */
export function compareVersions(a: string, b: string): number {
    const parse = (v: string) => {
        const s = v.replace(/^v/, "");
        const dash = s.indexOf("-");
        const core = dash < 0 ? s : s.slice(0, dash);
        return { nums: core.split(".").map((n) => Number(n)), pre: dash < 0 ? "" : s.slice(dash + 1) };
    };
    const x = parse(a);
    const y = parse(b);
    for (let i = 0; i < 3; i++) {
        const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
        if (d !== 0) return Math.sign(d);
    }
    if (x.pre === y.pre) return 0;
    if (x.pre === "") return 1;
    if (y.pre === "") return -1;
    return x.pre < y.pre ? -1 : 1;
}
