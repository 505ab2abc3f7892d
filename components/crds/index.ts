export * from "./iris-cluster";
export * from "./karmada-cluster";
export * from "./karmada-policy";
export * from "./types";
