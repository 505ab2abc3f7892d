// Each member's role in each IRIS mirror, for `npm run status`: the role the stack's config gives it
// (the pair's two failover pods, a DR async pod per DR member, which one is promoted), beside the
// label IKO's mirror labeler put on the pod (`intersystems.com/mirrorRole`: `primary` or `backup`
// only, research-35 Q4, so a DR async pod would read `backup` if a labeler ran for it; IKO runs one
// for its mirrored IrisClusters, and a DR IrisCluster is not mirrored). Read from the members' API
// servers, not through exec: the lag behind the primary needs a session in IRIS and is not shown.
import { IKO_POD_LABELS } from "../crds/iko-labels";
import type { MemberView, MirrorMemberView, MirrorView } from "../live/fleet-status-shape";
import type { PodLike } from "./promote";
import { Mirror } from "./mirror-state";
import { pairPods } from "./failback";

/** IKO's pod label for the mirror role. */
export const MIRROR_ROLE_LABEL = IKO_POD_LABELS.mirrorRole;

/** Reads a pod on a member: undefined when it does not exist; throws when it cannot be read. */
export type MemberPodGet = (member: string, namespace: string, name: string) => Promise<PodLike | undefined>;

/** The instances of a mirror and the role the config gives each, before anything is read. */
export function mirrorInstances(m: Mirror): Array<Omit<MirrorMemberView, "label" | "podState">> {
    const pairRole: MirrorMemberView["role"] = !m.promoted ? "failover" : m.rejoin ? "rejoining" : "fenced";
    return [
        ...pairPods(m).map((pod) => ({ member: m.primary, irisCluster: m.pair, pod, role: pairRole })),
        ...Object.entries(m.drAsync)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([member, irisCluster]) => ({
                member,
                irisCluster,
                pod: `${irisCluster}-data-0`,
                role: (m.promoted === member ? "promoted" : "drasync") as MirrorMemberView["role"],
            })),
    ];
}

/** Reads each instance's pod on its member; a member Karmada does not report Ready is not asked. */
export async function readMirrorViews(mirrors: Mirror[], members: MemberView[], getPod: MemberPodGet): Promise<MirrorView[]> {
    const views: MirrorView[] = [];
    for (const m of mirrors) {
        const rows: MirrorMemberView[] = [];
        for (const i of mirrorInstances(m)) {
            const state = members.find((x) => x.name === i.member)?.state ?? "NotJoined";
            if (state !== "Ready") {
                rows.push({ ...i, label: null, podState: `not read: ${i.member} is ${state}` });
                continue;
            }
            try {
                const pod = await getPod(i.member, m.namespace, i.pod);
                rows.push({
                    ...i,
                    label: pod?.metadata?.labels?.[MIRROR_ROLE_LABEL] ?? null,
                    podState: pod ? (pod.status?.phase ?? "no phase yet") : "no pod",
                });
            } catch (e) {
                rows.push({ ...i, label: null, podState: `unreadable: ${(e as Error).message}` });
            }
        }
        views.push({ id: m.id, name: m.name, primary: m.primary, promoted: m.promoted ?? null, members: rows });
    }
    return views;
}
