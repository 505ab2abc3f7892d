// Stack traces formatted by Node itself. The Pulumi SDK records a stack trace for every promise it
// tracks and every resource it registers (runtime/debuggable.js, resource.js): several per
// resource, each formatted at once. ts-node formats them through @cspotcode/source-map-support;
// Node's own formatter with its source maps (Pulumi.yaml's `nodeargs: --enable-source-maps`) gives
// the same TypeScript positions for less: the program's CPU in a preview went from 2.0 to 1.7 s
// with 1 member and from 3.4 to 2.8 s with 8 (docs/testing.md#where-a-preview-spends-its-time).
// Imported first by index.ts, after ts-node has installed its formatter and before any resource.

/** Hands stack-trace formatting back to Node when Node maps sources itself; true if it did. */
export function useNativeStackTraces(proc: { sourceMapsEnabled?: boolean } = process, error: { prepareStackTrace?: unknown } = Error): boolean {
    // Without --enable-source-maps (jest, a runtime that ignores nodeargs) ts-node's formatter
    // stays: it is then the only one that maps TypeScript positions.
    if (!proc.sourceMapsEnabled) return false;
    error.prepareStackTrace = undefined;
    return true;
}

useNativeStackTraces();
