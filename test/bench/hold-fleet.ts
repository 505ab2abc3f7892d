// Profiling aid: a loopback fleet of N members with the bench's stack brought `up` once, held
// running until SIGINT/SIGTERM, so that no-op `up`s and previews can be timed and traced by hand
// (`pulumi up --logflow -v=9`, KAMINO_TIMING=1) against the same fleet.
//
//   node -r ts-node/register/transpile-only test/bench/hold-fleet.ts <members> <info.json>
// writes the sandbox project dir, stack name and environment to <info.json> once `up` is done.
import * as fs from "fs";
import { EngineSandbox, toolchainPath } from "../support/engine";
import { IkoPlayer, LoopbackFleet } from "../cluster/harness";
import { loopbackStack } from "../cluster/loopback-stack";

async function main(): Promise<void> {
    const members = Number(process.argv[2] ?? "1");
    const info = process.argv[3] ?? "hold-fleet.json";
    const names = Array.from({ length: members }, (_, i) => (i === 0 ? "ikoclone" : `ikoclone${i + 1}`));
    const fleet = new LoopbackFleet({ hostName: "ikofett", members: names });
    const sandbox = new EngineSandbox(toolchainPath("engine"));
    let iko: IkoPlayer | undefined;
    const stop = async () => {
        await iko?.stop();
        sandbox.cleanup();
        await fleet.stop();
        process.exit(0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
    try {
        await fleet.start();
        iko = new IkoPlayer(fleet.members, 0).start();
        const name = `hold-${members}`;
        const stack = await loopbackStack(sandbox, fleet, name);
        const up = await stack.up();
        if (up.summary.result !== "succeeded") throw new Error(`up ${up.summary.result}`);
        fs.writeFileSync(info, JSON.stringify({ project: sandbox.project, stack: name, env: sandbox.env, binPath: sandbox.binPath }, null, 2));
        console.log(`fleet of ${members} up; ${info} written; SIGTERM to stop`);
    } catch (e) {
        console.error(e);
        await stop();
    }
}

void main();
