import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { findMemberDetail, findSubByEmailOrSub } from "~/domain/staff/member-detail.server";
import { emailChangeTokens, memberDirectory, memberProfiles, memberSessions, withdrawalReasons } from "~db/schema";
import { insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("member-detail");
const NOW = new Date("2026-11-20T03:00:00Z");
const HOUR_MS = 60 * 60 * 1000;
const hoursBefore = (hours: number) => new Date(NOW.getTime() - hours * HOUR_MS);

/** Values that must never reach the staff's page. */
const SECRETS = {
  refreshToken: "encrypted-refresh-token-secret",
  deviceKey: "device-key-secret",
  originJti: "origin-jti-secret",
  tokenHash: "token-hash-secret",
  passwordHash: "$2b$10$password-hash-secret",
};

async function addCancelledMigratedMember() {
  const { db } = database();
  const sub = crypto.randomUUID();
  const email = `Detail.${sub.slice(0, 8)}@Example.jp`;
  await insertDirectoryMembers(db, [
    {
      sub,
      email,
      familyName: "山田",
      givenName: "花子",
      locale: "ja",
      signedUpMicros: microsOf(hoursBefore(1000)),
      referrerService: "shop",
      cancelledAt: hoursBefore(2),
      legacyMigratedAt: hoursBefore(900),
    },
  ]);
  await db
    .update(memberProfiles)
    .set({ birthYear: 1985, prefecture: "13", questionnaire: { q1: ["news"], q2: "work" } })
    .where(eq(memberProfiles.sub, sub));
  await db
    .update(memberDirectory)
    .set({ groups: ["EDITORS"] })
    .where(eq(memberDirectory.sub, sub));
  const session = (name: string, values: Partial<typeof memberSessions.$inferInsert>) => ({
    sub,
    email,
    deviceKey: `${SECRETS.deviceKey}-${name}`,
    deviceName: name,
    browser: "Safari 17",
    refreshTokenEncrypted: `${SECRETS.refreshToken}-${name}`,
    originJti: `${SECRETS.originJti}-${name}`,
    createdAt: hoursBefore(100),
    ...values,
  });
  await db.insert(memberSessions).values([
    session("ended, used last", {
      activatedAt: hoursBefore(100),
      lastLoginAt: hoursBefore(3),
      revokedAt: hoursBefore(2),
    }),
    session("live, older", { activatedAt: hoursBefore(100), lastLoginAt: hoursBefore(50) }),
    session("waiting on the device limit", { activatedAt: null, lastLoginAt: hoursBefore(4) }),
    session("live, newer", { activatedAt: hoursBefore(10), lastLoginAt: hoursBefore(5) }),
  ]);
  const token = (name: string, createdHoursAgo: number, usedAt: Date | null, expiresAt: Date) => ({
    tokenHash: `${SECRETS.tokenHash}-${name}-${sub}`,
    sub,
    oldEmail: `old-${name}@example.jp`,
    newEmail: `new-${name}@example.jp`,
    createdAt: hoursBefore(createdHoursAgo),
    expiresAt,
    usedAt,
  });
  await db
    .insert(emailChangeTokens)
    .values([
      token("used", 300, hoursBefore(299), hoursBefore(276)),
      token("expired", 200, null, hoursBefore(176)),
      token("pending", 1, null, new Date(NOW.getTime() + 23 * HOUR_MS)),
    ]);
  await db.insert(withdrawalReasons).values({
    sub,
    reason: "other",
    detail: "別のサービスに移ります",
    locale: "ja",
    createdAt: hoursBefore(2),
  });
  return { sub, email };
}

test("the detail holds the directory, profile, sessions, e-mail history, cancellation and legacy state", async () => {
  const { db } = database();
  const { sub, email } = await addCancelledMigratedMember();
  const detail = await findMemberDetail(db, sub, NOW);

  expect(detail?.sub).toBe(sub);
  expect(detail?.directory).toMatchObject({
    username: sub,
    email,
    emailVerified: true,
    cognitoStatus: "CONFIRMED",
    enabled: true,
    status: "cancelled",
    signedUpAt: hoursBefore(1000),
    locale: "ja",
    familyName: "山田",
    givenName: "花子",
    groups: ["EDITORS"],
    referrerService: "shop",
    cancelledAt: hoursBefore(2),
    legacyMigratedAt: hoursBefore(900),
    missingFromCognitoAt: null,
  });
  expect(detail?.profile).toMatchObject({
    familyName: "山田",
    givenName: "花子",
    birthYear: 1985,
    prefecture: "13",
    preferredLanguage: "ja",
    questionnaire: { q1: ["news"], q2: "work" },
    referrerService: "shop",
    cancelledAt: hoursBefore(2),
  });
  expect(detail?.sessions.map((session) => [session.deviceName, session.live])).toEqual([
    ["live, newer", true],
    ["live, older", true],
    ["ended, used last", false],
    ["waiting on the device limit", false],
  ]);
  expect(detail?.sessions[2]).toMatchObject({
    browser: "Safari 17",
    createdAt: hoursBefore(100),
    activatedAt: hoursBefore(100),
    lastLoginAt: hoursBefore(3),
    revokedAt: hoursBefore(2),
  });
  expect(detail?.emailChanges.map((change) => [change.oldEmail, change.newEmail, change.state])).toEqual([
    ["old-pending@example.jp", "new-pending@example.jp", "pending"],
    ["old-expired@example.jp", "new-expired@example.jp", "expired"],
    ["old-used@example.jp", "new-used@example.jp", "used"],
  ]);
  expect(detail?.emailChanges[2]).toMatchObject({ requestedAt: hoursBefore(300), usedAt: hoursBefore(299) });
  expect(detail?.cancellation).toEqual({
    reason: "other",
    detail: "別のサービスに移ります",
    locale: "ja",
    cancelledAt: hoursBefore(2),
  });
  expect(detail?.legacy).toEqual({
    email: email.toLowerCase(),
    importedAt: expect.any(Date),
    migratedAt: hoursBefore(900),
  });
});

test("the detail carries no secret: refresh tokens, device keys, token ids, token hashes or password hashes", async () => {
  const { db } = database();
  const { sub } = await addCancelledMigratedMember();
  const serialized = JSON.stringify(await findMemberDetail(db, sub, NOW));
  for (const secret of Object.values(SECRETS)) expect(serialized).not.toContain(secret);
});

test("a member known only to the directory, or only by a profile, still has a detail; an unknown sub has none", async () => {
  const { db } = database();
  const directoryOnly = crypto.randomUUID();
  await insertDirectoryMembers(db, [
    { sub: directoryOnly, email: `${directoryOnly}@example.jp`, signedUpMicros: microsOf(NOW), withProfile: false },
  ]);
  const profileOnly = crypto.randomUUID();
  await db.insert(memberProfiles).values({ sub: profileOnly, familyName: "佐藤" });

  const fromDirectory = await findMemberDetail(db, directoryOnly, NOW);
  expect(fromDirectory).toMatchObject({
    profile: null,
    sessions: [],
    emailChanges: [],
    cancellation: null,
    legacy: null,
  });
  expect(fromDirectory?.directory?.status).toBe("active");
  const fromProfile = await findMemberDetail(db, profileOnly, NOW);
  expect(fromProfile).toMatchObject({ directory: null, profile: { familyName: "佐藤" } });
  expect(await findMemberDetail(db, crypto.randomUUID(), NOW)).toBeNull();
});

test("a member is opened by sub or by exact e-mail in any case, never by a prefix", async () => {
  const { db } = database();
  const { sub, email } = await addCancelledMigratedMember();
  expect(await findSubByEmailOrSub(db, `  ${email.toUpperCase()} `)).toBe(sub);
  expect(await findSubByEmailOrSub(db, sub.toUpperCase())).toBe(sub);
  expect(await findSubByEmailOrSub(db, email.slice(0, -3))).toBeNull();
  expect(await findSubByEmailOrSub(db, "nobody@example.jp")).toBeNull();
  expect(await findSubByEmailOrSub(db, "   ")).toBeNull();
  expect(await findSubByEmailOrSub(db, `${email}\u0000`)).toBeNull();
});

test("of two users that had the same address, the one Cognito still has is opened", async () => {
  const { db } = database();
  const [gone, current] = [crypto.randomUUID(), crypto.randomUUID()];
  const email = `shared-${gone.slice(0, 8)}@example.jp`;
  await insertDirectoryMembers(db, [
    { sub: gone, email, signedUpMicros: microsOf(hoursBefore(10)) },
    { sub: current, email, signedUpMicros: microsOf(hoursBefore(20)) },
  ]);
  await db
    .update(memberDirectory)
    .set({ missingFromCognitoAt: hoursBefore(1) })
    .where(eq(memberDirectory.sub, gone));
  expect(await findSubByEmailOrSub(db, email)).toBe(current);
});
