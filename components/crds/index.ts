export * from "./iko-labels";
export * from "./iris-cluster";
export * from "./karmada-api";
export * from "./karmada-cluster";
export * from "./karmada-policy";
export * from "./types";
