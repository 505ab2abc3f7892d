// The Karmada this fleet uses, as what Kamino makes in it sees it: one value handed to every
// component with objects in the Karmada API, instead of its provider and lifecycle one by one.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

/** The Karmada API a component writes to (KarmadaControlPlane makes it; Fleet passes it on). */
export interface KarmadaContext {
    /**
     * Provider of the Karmada API. Kamino's updates synced Secrets and ConfigMaps in place
     * (`enableSecretMutable`, `enableConfigMapMutable`), which SecretSync and FederatedConfigMaps need.
     */
    provider: k8s.Provider;
    /**
     * Resource whose deletion deletes the Karmada API (the host cluster of a Karmada Kamino
     * installs): objects there are then not deleted one by one. None for an existing Karmada.
     */
    lifecycle?: pulumi.Resource;
    /**
     * Kubeconfig of the Karmada API as this program reaches it (secret), for what reads Karmada
     * live: the running-wait, the agent's certificate and registration. None where nothing does.
     */
    kubeconfig?: pulumi.Input<string>;
}
