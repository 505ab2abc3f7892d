// The suites that need a host and two members share one loopback fleet instead of starting one each
// (test/cluster/scaffold/shared-fleet.ts): each has its own stack, sandbox and IKO player, and leaves
// the fleet as it found it, which its tear-down checks, so that the next one passes or fails on its
// own. The failover and preview-diff suites share another such fleet (failover-fleet.test.ts), so
// that the two files run on two of CI's workers at once.
// Run one with `-t "<describe name>"`.
import { DEPENDENCIES_MEMBERS, dependenciesSuite } from "./suites/dependencies";
import { MEMBER_ACCESS_MEMBERS, memberAccessSuite } from "./suites/member-access";
import { MIRROR_MEMBERS, mirrorSuite } from "./suites/mirror";
import { PULL_MEMBERS_MEMBERS, pullMembersSuite } from "./suites/pull-members";
import { sharedFleet } from "./scaffold/shared-fleet";

jest.setTimeout(30 * 60_000);

const MEMBERS = ["ikoclone", "ikoclone2"];
const shared = sharedFleet({ hostName: "ikofett", members: MEMBERS });

test("every suite here expects the shared fleet's members", () => {
    for (const names of [MEMBER_ACCESS_MEMBERS, DEPENDENCIES_MEMBERS, MIRROR_MEMBERS, PULL_MEMBERS_MEMBERS]) expect([...names].sort()).toEqual(MEMBERS);
});

describe("member access", () => memberAccessSuite(shared));
describe("dependencies", () => dependenciesSuite(shared));
describe("mirror", () => mirrorSuite(shared));
describe("pull members", () => pullMembersSuite(shared));
