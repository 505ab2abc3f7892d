// The follower `mirror-objects`: what an IRIS mirror across members (`kamino:irisClusters[].mirror`,
// config/mirror.ts) adds beside its IrisClusters: a Service per member that the others reach its
// IRIS through, and the merge files (ConfigMaps) of the DR members and of a pair rejoining after a
// promotion. IrisMirror declares them with the mirror and pins each where it belongs
// (federation/iris-mirror.ts), so Karmada's interpreter does not look for them.
import type { Follower } from "./follower";

export const mirrorObjectsFollower: Follower = {
    id: "mirror-objects",
    objects: { mirror: true },
    rights: (plan) =>
        plan.mirrors.flatMap((mirror) => {
            const namespace = plan.irisClusters.find((ic) => ic.mirror === mirror)!.config.namespace;
            return [
                { group: "", resource: "configmaps", namespace },
                ...[mirror.pair, ...mirror.drAsync].map((m) => ({ group: "", resource: "services", namespace, name: m.serviceName })),
            ];
        }),
    drMembers: "placed",
};
