// Kamino: read the stack config, build the fleet, export what users need.
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { CONFIG_NAMESPACE, loadFleetConfig } from "./components/config";
import { Fleet } from "./components/fleet";
import { checkCommands, isSecretConfigKey, secretConfigValues } from "./components/stack";

const config = loadFleetConfig(pulumi.runtime.allConfig(), {
    pathExists: (p) => fs.existsSync(p),
    isSecret: isSecretConfigKey,
});
const fleet = new Fleet("kamino", { config, secretValues: secretConfigValues(config, new pulumi.Config(CONFIG_NAMESPACE)) });

/** Every cluster: name, provider, API endpoint as Karmada reaches it, and which one hosts Karmada. */
export const clusters = fleet.clusterSummaries;
/** Kubeconfigs of all clusters, keyed by name (secret). */
export const kubeconfigs = fleet.kubeconfigs;
/** Kubeconfig of the Karmada API, the seed's `ikokamino` (secret). */
export const karmadaKubeconfig = fleet.karmada.kubeconfig;
/** The cluster hosting Karmada and the joined members. */
export const karmadaHost = fleet.hostName;
export const members = Object.keys(fleet.members);
/** For each IrisCluster (`namespace/name`), the members it is propagated to. */
export const irisClusters = Object.fromEntries(Object.entries(fleet.irisClusters).map(([id, f]) => [id, f.targetClusters]));
/** For each synced Secret (`namespace/name`), the members it reaches. */
export const syncedSecrets = fleet.secretSync?.targets ?? {};
/** Ready-to-paste commands to check the result. */
export const commands = checkCommands(config);
