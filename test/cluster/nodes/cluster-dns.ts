// The cluster DNS of a real-node cluster (pure): CoreDNS with the kubernetes plugin behind the
// ClusterIP every kubelet names (`clusterDNS`), the objects kubeadm makes for it, trimmed to what a
// cluster without an upstream resolver needs (no `forward`: names outside cluster.local fail fast).
import { KubeObject } from "../harness/kube-client";
import { COREDNS_IMAGE } from "./images";

const NS = "kube-system";
const NAME = "coredns";
const labels = { "k8s-app": "kube-dns" };

export const COREFILE = `.:53 {
    errors
    health :8080
    ready :8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
    loadbalance
}
`;

/**
 * Every object, in the order to apply them; `dnsIp` is the kubelets' `clusterDNS`. Two replicas on
 * two nodes where there are two (as kubeadm and GKE's kube-dns run it): with one, a node's loss took
 * the cluster's DNS with it, and every client of a Service's name failed for the whole outage.
 */
export function clusterDnsObjects(dnsIp: string, nodes = 1): KubeObject[] {
    return [
        { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: NAME, namespace: NS } },
        {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRole",
            metadata: { name: "system:coredns" },
            rules: [
                { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
                { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
            ],
        } as KubeObject,
        {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name: "system:coredns" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
            subjects: [{ kind: "ServiceAccount", name: NAME, namespace: NS }],
        } as KubeObject,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: NAME, namespace: NS }, data: { Corefile: COREFILE } } as KubeObject,
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: NAME, namespace: NS, labels },
            spec: {
                replicas: Math.min(2, Math.max(1, nodes)),
                selector: { matchLabels: labels },
                template: {
                    metadata: { labels },
                    spec: {
                        serviceAccountName: NAME,
                        dnsPolicy: "Default",
                        priorityClassName: "system-cluster-critical",
                        affinity: {
                            podAntiAffinity: {
                                requiredDuringSchedulingIgnoredDuringExecution: [
                                    { labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" },
                                ],
                            },
                        },
                        containers: [
                            {
                                name: "coredns",
                                image: COREDNS_IMAGE,
                                imagePullPolicy: "Never",
                                args: ["-conf", "/etc/coredns/Corefile"],
                                ports: [
                                    { name: "dns", containerPort: 53, protocol: "UDP" },
                                    { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
                                ],
                                readinessProbe: { httpGet: { path: "/ready", port: 8181 }, periodSeconds: 2 },
                                volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }],
                            },
                        ],
                        volumes: [{ name: "config", configMap: { name: NAME } }],
                    },
                },
            },
        } as KubeObject,
        {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "kube-dns", namespace: NS, labels },
            spec: {
                clusterIP: dnsIp,
                selector: labels,
                ports: [
                    { name: "dns", port: 53, protocol: "UDP" },
                    { name: "dns-tcp", port: 53, protocol: "TCP" },
                ],
            },
        } as KubeObject,
    ];
}
