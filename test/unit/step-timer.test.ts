// The engine events' step timer (test/support/engine.ts), which the chart's cluster test uses to say
// where its destroy spent its time.
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { stepTimer } from "../support/engine";

const URN = (type: string, name: string) => `urn:pulumi:s::kamino::kamino:index:Fleet$kamino:index:KarmadaControlPlane$${type}::${name}`;
// The engine leaves `custom` out of a component's state (false is omitted from its JSON).
const pre = (urn: string, op: string, custom = true) =>
    ({ resourcePreEvent: { metadata: { urn, op, old: custom ? { custom } : {} } } }) as unknown as EngineEvent;
const outputs = (urn: string) => ({ resOutputsEvent: { metadata: { urn } } }) as unknown as EngineEvent;
const failed = (urn: string) => ({ resOpFailedEvent: { metadata: { urn } } }) as unknown as EngineEvent;

test("times each custom resource's step from its pre-event to its outputs or failure, and lists the slowest first", () => {
    let t = 0;
    const timer = stepTimer(() => t);
    // A component's step spans its children's: not listed.
    const component = URN("kamino:index:KarmadaControlPlane", "karmada");
    timer.onEvent(pre(component, "delete", false));
    const release = URN("kubernetes:helm.sh/v3:Release", "karmada");
    const ns = URN("kubernetes:core/v1:Namespace", "karmada-system");
    const patch = URN("kubernetes:apps/v1:DeploymentPatch", "health");
    timer.onEvent(pre(release, "delete"));
    t = 1000;
    timer.onEvent(pre(ns, "delete"));
    timer.onEvent(pre(patch, "delete"));
    t = 3500;
    timer.onEvent(failed(patch));
    t = 41_000;
    timer.onEvent(outputs(release));
    timer.onEvent(outputs(URN("kubernetes:core/v1:Secret", "never-started")));
    t = 50_000;
    timer.onEvent(outputs(ns));
    timer.onEvent(outputs(component));
    expect(timer.slowest(2)).toEqual([
        { op: "delete", resource: "kubernetes:core/v1:Namespace::karmada-system", seconds: 49 },
        { op: "delete", resource: "kubernetes:helm.sh/v3:Release::karmada", seconds: 41 },
    ]);
    expect(timer.slowest(5).map((s) => s.seconds)).toEqual([49, 41, 2.5]);
    expect(timer.slowestLine(2)).toBe("delete kubernetes:core/v1:Namespace::karmada-system 49.0 s, delete kubernetes:helm.sh/v3:Release::karmada 41.0 s");
});
