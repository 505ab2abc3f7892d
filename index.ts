// Kamino: read the stack config, build the fleet, export what users need. An async program, so
// that `pulumi up` ends only when the fleet runs: it awaits IKO reporting every federated
// IrisCluster Running on its members (never in a preview), and fails with the members that do not.
// First: stack traces formatted by Node, before any resource records one (stack-traces.ts).
import "./components/common/stack-traces";
import * as pulumi from "@pulumi/pulumi";
import { kaminoProgram } from "./components/stack";

export = async () => {
    const { outputs, running } = await kaminoProgram(pulumi.runtime.allConfig());
    const runningOn = await running;
    return {
        /** Every cluster: name, provider, API endpoint as Karmada reaches it, and whether it hosts Karmada. */
        clusters: outputs.clusters,
        /** Kubeconfigs of all clusters, keyed by name (secret). */
        kubeconfigs: outputs.kubeconfigs,
        /** Kubeconfig of the Karmada API, the seed's `ikokamino` (secret). */
        karmadaKubeconfig: outputs.karmadaKubeconfig,
        /** The Karmada API's URL: what Kamino, teammates and Pull members' agents dial (not secret). */
        karmadaEndpoint: outputs.karmadaEndpoint,
        /** The cluster hosting Karmada. */
        karmadaHost: outputs.karmadaHost,
        /** The clusters joined to Karmada. */
        members: outputs.members,
        /** For each IrisCluster (`namespace/name`), the members it is propagated to. */
        irisClusters: outputs.irisClusters,
        /**
         * On `up`, for each IrisCluster it waited for, the members it runs on now: in failover mode
         * the one Karmada chose, which after a failover is a backup (absent in preview).
         */
        ...(pulumi.runtime.isDryRun() ? {} : { runningOn }),
        /** For each synced Secret (`namespace/name`), the members it reaches. */
        syncedSecrets: outputs.syncedSecrets,
        /** For each ConfigMap of `kamino:configMaps` (`namespace/name`), the members it reaches. */
        configMaps: outputs.configMaps,
        /** For each object of `kamino:manifests` (`Kind[.group] namespace/name`), the members it goes to. */
        manifests: outputs.manifests,
        /** For each IrisCluster with an IRIS mirror (`namespace/name`): its members' roles and IrisClusters, and a promotion in force. */
        mirrors: outputs.mirrors,
        /** Ready-to-paste commands that show the result. */
        commands: outputs.commands,
    };
};
