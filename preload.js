// Loaded by Node before Pulumi's runner (Pulumi.yaml: `nodeargs: --require ./preload.js`), so that
// V8's compile cache covers everything a run loads: the SDK, gRPC, the TypeScript compiler Pulumi's
// runner reads tsconfig with, @pulumi/kubernetes and the program. The second run of a program
// compiles none of it again: ~0.15-0.3 s of CPU less per preview or up (docs/testing.md). The cache
// sits in the OS temp dir (node-compile-cache), keyed by each file's content; a Node without
// module.enableCompileCache (before 22.1) runs as before.
const { enableCompileCache } = require("module");
if (typeof enableCompileCache === "function") enableCompileCache();
