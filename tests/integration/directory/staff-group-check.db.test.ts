import { AdminAddUserToGroupCommand, AdminRemoveUserFromGroupCommand } from "@aws-sdk/client-cognito-identity-provider";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { memberDirectory, staffGroupChecks } from "~db/schema";
import {
  STAFF_RIGHTS_MAX_AGE_MS,
  checkStaffGroup,
  staffStandingNow,
} from "~/domain/directory/staff-group-check.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { StandIns } from "~/server/start-server";
import type { Clock } from "~/services.server";
import { type StandInSdk, connectToStandIn } from "../../support/bearer-tokens";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { useTestDatabase } from "../../support/test-database";
import { createNamedMember } from "../../support/admin-members";

// The staff group's reading against the real parts: the Cognito stand-in over HTTP (ListUsersInGroup through the
// AWS SDK) and PGlite (or PostgreSQL via TEST_DATABASE_URL). The clock is the test's, so "a minute later" is exact.
const GROUP = "admin";
const INTERVAL_MS = 20_000;
const temp = makeTempDir("staff-group-check");
const database = useTestDatabase("staff-group-check-db", { ownDatabase: true });
let stack: StandIns;
let sdk: StandInSdk;
let current = new Date("2026-04-01T09:00:00Z");
const clock: Clock = { now: () => current };
const moveClock = (ms: number) => (current = new Date(current.getTime() + ms));

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: GROUP });
  sdk = await connectToStandIn(Number(new URL(stack.env.COGNITO_ENDPOINT!).port));
}, 150_000);

afterAll(async () => {
  sdk?.destroy();
  await stack?.stop();
  temp.remove();
});

const deps = () => ({ db: database().db, identity: createIdentityProvider(cognitoConfigOf(stack)), clock });
/** A token issued long before any reading: the directory's word decides. */
const standingOf = (sub: string, tokenIssuedAt = new Date(0)) =>
  staffStandingNow(database().db, { sub, staffGroup: GROUP, tokenIssuedAt, now: clock.now() });
const staffMember = (label: string) =>
  createNamedMember(Number(new URL(stack.env.COGNITO_ENDPOINT!).port), {
    email: `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    admin: true,
  });
const setMembership = (email: string, inGroup: boolean) =>
  sdk.cognito.send(
    inGroup
      ? new AdminAddUserToGroupCommand({ UserPoolId: sdk.userPoolId, Username: email, GroupName: GROUP })
      : new AdminRemoveUserFromGroupCommand({ UserPoolId: sdk.userPoolId, Username: email, GroupName: GROUP }),
  );

test("before any reading nobody is staff: unverified, refused", async () => {
  const staff = await staffMember("unread");
  expect(await standingOf(staff.sub)).toBe("unverified");
});

test("a reading adds a staff member the directory lacked, with their row; removed from the group, the next reading takes it away", async () => {
  const staff = await staffMember("removed");
  const stays = await staffMember("stays");
  expect(await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS })).toBe("checked");
  const [row] = await database().db.select().from(memberDirectory).where(eq(memberDirectory.sub, staff.sub));
  expect(row).toMatchObject({ email: staff.email, groups: [GROUP] });
  expect(await standingOf(staff.sub)).toBe("staff");

  await setMembership(staff.email, false);
  // Still believed until the next reading: at most an interval later.
  expect(await standingOf(staff.sub)).toBe("staff");
  moveClock(INTERVAL_MS);
  expect(await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS })).toBe("checked");
  expect(await standingOf(staff.sub)).toBe("not-staff");
  expect(await standingOf(stays.sub)).toBe("staff");

  await setMembership(staff.email, true);
  moveClock(INTERVAL_MS);
  await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS });
  expect(await standingOf(staff.sub)).toBe("staff");
});

test("a token issued after the last reading is the newer word: a member just added is staff before the next reading", async () => {
  moveClock(INTERVAL_MS);
  await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS });
  const added = await staffMember("just-added");
  expect(await standingOf(added.sub)).toBe("not-staff");
  expect(await standingOf(added.sub, new Date(current.getTime() + 1000))).toBe("staff");
  // Issued in the second the reading started (`iat` is whole seconds): it may be the later one, so it counts.
  const sameSecond = new Date(Math.floor(current.getTime() / 1000) * 1000);
  expect(await standingOf(added.sub, sameSecond)).toBe("staff");
  // A second before the reading: the reading is the newer word.
  expect(await standingOf(added.sub, new Date(sameSecond.getTime() - 1000))).toBe("not-staff");
});

test("one instance reads per interval: a second asking within it is busy", async () => {
  moveClock(INTERVAL_MS);
  expect(await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS })).toBe("checked");
  moveClock(1000);
  expect(await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS })).toBe("busy");
});

test("without a reading for over a minute (the job failing), staff rights are not assumed: unverified", async () => {
  const staff = await staffMember("lapsed");
  moveClock(INTERVAL_MS);
  await checkStaffGroup(deps(), { staffGroup: GROUP, intervalMs: INTERVAL_MS });
  const [check] = await database().db.select().from(staffGroupChecks).where(eq(staffGroupChecks.groupName, GROUP));
  expect(check!.checkedAt).toEqual(current);
  moveClock(STAFF_RIGHTS_MAX_AGE_MS);
  expect(await standingOf(staff.sub)).toBe("staff");
  moveClock(1000);
  expect(await standingOf(staff.sub)).toBe("unverified");
});
