// What the cross-key checks see: the parsed config, the raw input and the injected environment.
import { Problem } from "./problems";
import { FleetConfig } from "./schema";

/** What `loadFleetConfig` needs to know about the environment, injected so the function stays pure. */
export interface ConfigEnvironment {
    /** True when a path (relative to the project directory) exists; used for the IKO chart check. */
    pathExists?: (path: string) => boolean;
    /** The text of a file (relative to the project directory); `kamino:manifests` are read with it. */
    readFile?: (path: string) => string;
    /** True when `kamino:<key>` is a Pulumi secret. */
    isSecret?: (key: string) => boolean;
}

/**
 * The config the cross-key checks see: the cluster list parsed, other keys possibly not (their
 * schema problems are reported already), hence optional.
 */
export type CheckedConfig = Pick<FleetConfig, "clusters"> & Partial<Omit<FleetConfig, "clusters">>;

/** What a check may look at besides the parsed config. */
export interface CheckContext {
    /** Every `kamino:` key of the stack, as `configInput` parsed it. */
    input: Record<string, unknown>;
    env: ConfigEnvironment;
}

export type ConfigCheck = (cfg: CheckedConfig, ctx: CheckContext) => Problem[];
