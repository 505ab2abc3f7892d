// FollowerObjects: the objects a follower describes (config/followers, `objects.describe`), created in
// the Karmada API as described, one component per follower. They get no policy of their own:
// Karmada's interpreter finds each beside its IrisCluster (the follower's lookup) and sends it
// wherever the IrisCluster goes. Labelled with their follower, so that `up` can take the objects of
// a removed entry off the members before their rights narrow (manifest-cleanup.ts).
import * as pulumi from "@pulumi/pulumi";
import { apiGroup, KarmadaObject, manifestObjectId } from "../config";
import { ManifestObjectResource, SKIP_AWAIT } from "./manifests";
import { inheritedDependsOn } from "../common/options";
import { KarmadaContext } from "../common/karmada-context";

/** The label on every object a follower describes; its value is the follower's id. */
export const FOLLOWER_LABEL = "kamino.io/follower";

/** Arguments of a FollowerObjects. */
export interface FollowerObjectsArgs {
    /** The follower's id (config/followers): its label value. */
    follower: string;
    /** The objects it describes for the fleet plan. */
    objects: KarmadaObject[];
    /** The Karmada API they are created in. */
    karmada: KarmadaContext;
}

/** How outputs and messages name a described object: `Kind[.group] namespace/name`. */
export const describedObjectId = (o: KarmadaObject) =>
    manifestObjectId({ kind: o.kind, group: apiGroup(o.apiVersion), namespace: o.metadata.namespace, name: o.metadata.name });

/** One follower's objects in the Karmada API. */
export class FollowerObjects extends pulumi.ComponentResource {
    /** The objects, keyed `Kind[.group] namespace/name`. */
    public readonly objects: Record<string, ManifestObjectResource> = {};

    constructor(name: string, args: FollowerObjectsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kamino:index:FollowerObjects", name, {}, opts);
        const child = { parent: this, provider: args.karmada.provider, deletedWith: args.karmada.lifecycle, dependsOn: inheritedDependsOn(opts) };
        for (const o of args.objects) {
            const metadata = {
                ...o.metadata,
                labels: { ...(o.metadata.labels ?? {}), [FOLLOWER_LABEL]: args.follower },
                // A template in Karmada: whatever readiness its kind has is on the members (manifests.ts).
                annotations: { ...(o.metadata.annotations ?? {}), ...SKIP_AWAIT },
            };
            const resourceName = [name, ...(o.metadata.namespace ? [o.metadata.namespace] : []), o.metadata.name].join("-");
            this.objects[describedObjectId(o)] = new ManifestObjectResource(resourceName, { ...o, metadata }, child);
        }
        this.registerOutputs({});
    }
}
