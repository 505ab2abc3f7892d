import * as pulumi from "@pulumi/pulumi";

/** `T` with every nested field allowed to be a Pulumi Input, so specs can carry outputs. */
export type DeepInput<T> = unknown extends T
    ? T
    : T extends string | number | boolean | undefined | null
      ? T
      : T extends Array<infer E>
        ? pulumi.Input<Array<pulumi.Input<DeepInput<E>>>>
        : { [K in keyof T]: pulumi.Input<DeepInput<T[K]>> };
