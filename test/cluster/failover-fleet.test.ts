// Failover and preview diffs on one loopback fleet of a host and two members (shared as
// two-member-fleet.test.ts shares its own: test/cluster/scaffold/shared-fleet.ts). Preview diffs go
// last: they stop every API server, after which Karmada's controllers take a minute or more to tear a
// stack down, and the last suite's stack goes with the fleet instead.
// Run one with `-t "<describe name>"`.
import { FAILOVER_MEMBERS, failoverSuite } from "./suites/failover";
import { PREVIEW_DIFF_MEMBERS, previewDiffSuite } from "./suites/preview-diff";
import { sharedFleet } from "./scaffold/shared-fleet";

jest.setTimeout(30 * 60_000);

const MEMBERS = ["ikoclone", "ikoclone2"];
const shared = sharedFleet({ hostName: "ikofett", members: MEMBERS });

test("every suite here expects the shared fleet's members", () => {
    for (const names of [PREVIEW_DIFF_MEMBERS, FAILOVER_MEMBERS]) expect([...names].sort()).toEqual(MEMBERS);
});

describe("failover", () => failoverSuite(shared));
describe("preview diffs", () => previewDiffSuite(shared));
