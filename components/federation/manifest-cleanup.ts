// Removing a `kamino:manifests` entry, or a follower's object (a NetworkPolicy whose entry lost its
// `networkPolicy`), with narrow member access: Karmada must delete the member copies while it still
// has the rights to, but Pulumi deletes a removed resource only at the end of `up`, after it has
// updated (narrowed) the member Roles. So on `up`, before the narrowed rules are written
// (KarmadaMember's narrowAfter), Kamino deletes the templates of objects it made from manifests or
// for a follower (by their labels) that the plan no longer has, and waits until Karmada has removed
// them from every member (their Works are gone). Pulumi's own delete then finds them gone, which it
// takes as done.
import * as pulumi from "@pulumi/pulumi";
import { apiGroup, describedObjects, FleetPlan, manifestObjectId } from "../config";
import { apiResources, describeError, discoveryPath, KubeObject, kubeRequest } from "../live/kube-read";
import { describedObjectId, FOLLOWER_LABEL } from "./follower-objects";
import { KAMINO_MANIFEST_LABEL } from "./manifests";
import { poll } from "../live/poll";
import { ProgressSink, WaitProgress } from "../live/progress";
import { KARMADA_PATHS } from "../crds/karmada-api";

/** An object a Work in Karmada holds for a member. */
export type WorkObject = Required<Pick<KubeObject, "apiVersion" | "kind">> & {
    metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

/** What the clean-up asks the Karmada API; injected so that tests can answer. */
export interface KarmadaWorks {
    /** The objects every Work in Karmada holds (one Work per object and member). */
    workObjects(): Promise<WorkObject[]>;
    /** Deletes a template from the Karmada API; one already gone is no error. */
    deleteTemplate(o: WorkObject): Promise<void>;
}

/** How long the clean-up waits for Karmada to take removed objects off the members. */
export interface CleanupOptions {
    timeoutSeconds?: number;
    intervalSeconds?: number;
    /** Where a line goes each time the count of Works still holding the objects changes. */
    onProgress?: ProgressSink;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
}

const idOf = (o: WorkObject) => manifestObjectId({ kind: o.kind, group: apiGroup(o.apiVersion), namespace: o.metadata.namespace, name: o.metadata.name });
const [[LABEL, LABEL_VALUE]] = Object.entries(KAMINO_MANIFEST_LABEL);
/** Kamino made it from a manifest, or for a follower that describes its objects. */
const madeByKamino = (o: WorkObject) => o.metadata.labels?.[LABEL] === LABEL_VALUE || o.metadata.labels?.[FOLLOWER_LABEL] !== undefined;

/**
 * Deletes from Karmada every object Kamino made from a manifest or for a follower (by their labels)
 * that some member still holds and `keep` (the `manifestObjectId`s the plan has) no longer lists,
 * then waits until no Work holds any of them. Resolves the ids removed; rejects when Karmada has not
 * removed them in time.
 */
export async function removeDroppedObjects(karmada: KarmadaWorks, keep: Set<string>, opts: CleanupOptions = {}): Promise<string[]> {
    const dropped = new Map<string, WorkObject>();
    for (const o of await karmada.workObjects()) if (madeByKamino(o) && !keep.has(idOf(o))) dropped.set(idOf(o), o);
    if (dropped.size === 0) return [];
    for (const o of dropped.values()) await karmada.deleteTemplate(o);
    const timeoutSeconds = opts.timeoutSeconds ?? 120;
    const progress = new WaitProgress(opts.onProgress, opts.now);
    await poll(
        async () => {
            const left = (await karmada.workObjects()).filter((o) => dropped.has(idOf(o)));
            if (left.length > 0) progress.update(`waiting for Karmada to take ${[...dropped.keys()].join(", ")} off the members: ${left.length} Work(s) left`);
            return left.length === 0 ? true : undefined;
        },
        {
            timeoutSeconds,
            intervalSeconds: opts.intervalSeconds ?? 1,
            now: opts.now,
            sleep: opts.sleep,
            timeoutError: () =>
                new Error(
                    `Karmada has not removed ${[...dropped.keys()].join(", ")} from its members within ${timeoutSeconds}s; see its ResourceBindings and Works (kubectl get works -A)`,
                ),
        },
    );
    return [...dropped.keys()];
}

/** The live Karmada API, through its kubeconfig. */
export function liveKarmadaWorks(kubeconfig: string): KarmadaWorks {
    return {
        workObjects: async () => {
            const res = await kubeRequest(kubeconfig, "GET", KARMADA_PATHS.works);
            if (res.status !== 200) throw new Error(`listing Karmada's Works: ${describeError({ code: res.status, body: res.body })}`);
            const items = (JSON.parse(res.body) as { items?: Array<{ spec?: { workload?: { manifests?: WorkObject[] } } }> }).items ?? [];
            return items.flatMap((w) => w.spec?.workload?.manifests ?? []).filter((o) => o?.metadata?.name !== undefined);
        },
        deleteTemplate: async (o) => {
            const resource = (await apiResources(kubeconfig, o.apiVersion))?.find((r) => r.kind === o.kind)?.name;
            if (!resource) return; // Karmada no longer serves the kind: there is no template to delete.
            const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
            const res = await kubeRequest(kubeconfig, "DELETE", `${discoveryPath(o.apiVersion)}${ns}/${resource}/${o.metadata.name}`);
            if (res.status >= 300 && res.status !== 404)
                throw new Error(`deleting ${idOf(o)} from Karmada: ${describeError({ code: res.status, body: res.body })}`);
        },
    };
}

/**
 * On `up` with narrow member access: settles once Karmada has taken the objects of removed
 * manifest entries and followers off the members, before the member rules narrow. A Karmada that
 * cannot be reached is a warning, logged on `logTo`: the rules then narrow as before.
 */
export function removedObjectsCleanup(
    plan: FleetPlan,
    karmadaKubeconfig: pulumi.Output<string>,
    karmadaWorks = liveKarmadaWorks,
    logTo?: pulumi.Resource,
): pulumi.Output<boolean> | undefined {
    const cfg = plan.config;
    if (pulumi.runtime.isDryRun() || cfg.karmada.memberAccess.mode !== "narrow") return undefined;
    const keep = new Set([
        ...cfg.manifests.flatMap((m) => m.objects.map(manifestObjectId)),
        ...Object.values(describedObjects(plan)).flatMap((objects) => objects.map(describedObjectId)),
    ]);
    return karmadaKubeconfig.apply(async (kubeconfig) => {
        try {
            const removed = await removeDroppedObjects(karmadaWorks(kubeconfig), keep, {
                onProgress: (line) => pulumi.log.info(line, logTo, undefined, true),
            });
            if (removed.length > 0) pulumi.log.info(`removed from Karmada and its members before narrowing their rights: ${removed.join(", ")}`, logTo);
        } catch (e) {
            pulumi.log.warn(
                `could not clean up the removed objects of kamino:manifests and followers before narrowing Karmada's rights: ${(e as Error).message}`,
                logTo,
            );
        }
        return true;
    });
}
