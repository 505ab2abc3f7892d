// The suites that need a host and two members share one loopback fleet instead of starting one each
// (test/cluster/scaffold/shared-fleet.ts): each has its own stack, sandbox and IKO player, and leaves
// the fleet as it found it, which its tear-down checks, so that the next one passes or fails on its
// own. Preview diffs go last: they stop every API server, after which Karmada's controllers take a
// minute or more to tear a stack down, and the last suite's stack goes with the fleet instead.
// Run one with `-t "<describe name>"`.
import { DEPENDENCIES_MEMBERS, dependenciesSuite } from "./suites/dependencies";
import { FAILOVER_MEMBERS, failoverSuite } from "./suites/failover";
import { MEMBER_ACCESS_MEMBERS, memberAccessSuite } from "./suites/member-access";
import { MIRROR_MEMBERS, mirrorSuite } from "./suites/mirror";
import { PREVIEW_DIFF_MEMBERS, previewDiffSuite } from "./suites/preview-diff";
import { PULL_MEMBERS_MEMBERS, pullMembersSuite } from "./suites/pull-members";
import { sharedFleet } from "./scaffold/shared-fleet";

jest.setTimeout(30 * 60_000);

const MEMBERS = ["ikoclone", "ikoclone2"];
const shared = sharedFleet({ hostName: "ikofett", members: MEMBERS });

test("every suite here expects the shared fleet's members", () => {
    for (const names of [MEMBER_ACCESS_MEMBERS, DEPENDENCIES_MEMBERS, MIRROR_MEMBERS, PULL_MEMBERS_MEMBERS, PREVIEW_DIFF_MEMBERS, FAILOVER_MEMBERS])
        expect([...names].sort()).toEqual(MEMBERS);
});

describe("member access", () => memberAccessSuite(shared));
describe("dependencies", () => dependenciesSuite(shared));
describe("mirror", () => mirrorSuite(shared));
describe("pull members", () => pullMembersSuite(shared));
describe("failover", () => failoverSuite(shared));
describe("preview diffs", () => previewDiffSuite(shared));
