// Kamino: read the stack config, build the fleet, export what users need.
import * as pulumi from "@pulumi/pulumi";
import { kaminoStack } from "./components/stack";

const { outputs } = kaminoStack(pulumi.runtime.allConfig());

/** Every cluster: name, provider, API endpoint as Karmada reaches it, and whether it hosts Karmada. */
export const clusters = outputs.clusters;
/** Kubeconfigs of all clusters, keyed by name (secret). */
export const kubeconfigs = outputs.kubeconfigs;
/** Kubeconfig of the Karmada API, the seed's `ikokamino` (secret). */
export const karmadaKubeconfig = outputs.karmadaKubeconfig;
/** The cluster hosting Karmada. */
export const karmadaHost = outputs.karmadaHost;
/** The clusters joined to Karmada. */
export const members = outputs.members;
/** For each IrisCluster (`namespace/name`), the members it is propagated to. */
export const irisClusters = outputs.irisClusters;
/** For each synced Secret (`namespace/name`), the members it reaches. */
export const syncedSecrets = outputs.syncedSecrets;
/** Ready-to-paste commands that show the result. */
export const commands = outputs.commands;
