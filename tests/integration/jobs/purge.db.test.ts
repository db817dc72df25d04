import { eq, inArray, sql } from "drizzle-orm";
import { expect, test, vi } from "vitest";
import {
  emailChangeTokens,
  mailOutbox,
  memberProfiles,
  memberSessions,
  memberSignOuts,
  invitationResends,
  memberPasskeys,
  scheduledJobTurns,
  signInAlertTokens,
  staffSessions,
  withdrawalReasons,
} from "~db/schema";
import { MAIL_OUTBOX_RETENTION_DAYS } from "~/domain/mail/mail-outbox.server";
import { PENDING_SIGN_IN_TTL_MS } from "~/domain/sessions/device-admission.server";
import { STAFF_SESSION_IDLE_MS, STAFF_SESSION_MAX_MS } from "~/domain/sessions/staff-sessions.server";
import {
  EMAIL_CHANGE_TOKEN_RETENTION_DAYS,
  ENDED_SESSION_RETENTION_DAYS,
  OWED_REVOCATION_GIVE_UP_DAYS,
  PURGE_LOCK_KEY,
  runPurge,
  runPurgeExclusively,
  schedulePurge,
} from "~/domain/jobs/purge.server";
import { purgeCancelledProfiles, retentionCutoff } from "~/domain/account/withdrawal.server";
import { metricsExposition } from "~/integrations/metrics.server";
import { useTestDatabase } from "../../support/test-database";

// Its own on PostgreSQL: the purge deletes whatever rows are past their retention at NOW, other files' too.
const database = useTestDatabase("withdrawal-purge", { ownDatabase: true });
/** The controlled clock: the job runs "now" at this instant. */
const NOW = new Date("2026-11-21T03:00:00Z");
const DAY_MS = 24 * 60 * 60 * 1000;

function monthsBefore(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  result.setUTCMonth(result.getUTCMonth() - months);
  return result;
}

async function addMember(cancelledAt: Date | null) {
  const sub = crypto.randomUUID();
  const { db } = database();
  await db
    .insert(memberProfiles)
    .values({ sub, familyName: "山田", givenName: "太郎", cancelledAt, cognitoDeletedAt: cancelledAt });
  await db.insert(memberSessions).values({
    sub,
    email: `${sub.slice(0, 8)}@example.jp`,
    deviceKey: "k",
    deviceName: "d",
    browser: "b",
    refreshTokenEncrypted: "x",
    revokedAt: cancelledAt,
    refreshTokenRevokedAt: cancelledAt,
  });
  await db.insert(memberSignOuts).values({ sub, signedOutAt: cancelledAt ?? NOW });
  await db.insert(invitationResends).values({ sub, resentAt: cancelledAt ?? NOW });
  await db.insert(memberPasskeys).values({
    credentialId: `passkey-${sub}`,
    sub,
    madeOnDevice: "iOS 18",
    madeOnBrowser: "Safari 18",
    createdAt: cancelledAt ?? NOW,
  });
  if (cancelledAt) {
    await db
      .insert(withdrawalReasons)
      .values({ sub, reason: "other", detail: "山田が書いた理由", locale: "ja", createdAt: cancelledAt });
  }
  return sub;
}

test("the retention period is 13 months", async () => {
  expect(retentionCutoff(NOW).toISOString()).toBe("2025-10-21T03:00:00.000Z");
  // Month ends clamp rather than roll over.
  expect(retentionCutoff(new Date("2026-03-31T00:00:00Z")).toISOString()).toBe("2025-02-28T00:00:00.000Z");

  // At the edge: a profile cancelled exactly 13 months before the job runs stays, and goes a millisecond later.
  const { db } = database();
  const cancelled = await addMember(new Date("2025-10-21T03:00:00.000Z"));
  expect((await purgeCancelledProfiles(db, NOW)).purged).toBe(0);
  expect((await purgeCancelledProfiles(db, new Date(NOW.getTime() + 1))).purged).toBe(1);
  expect(await db.select().from(memberProfiles).where(eq(memberProfiles.sub, cancelled))).toEqual([]);
});

test("purges only profiles cancelled more than 13 months ago; reasons stay", async () => {
  const { db } = database();
  const expired = await addMember(new Date(monthsBefore(NOW, 13).getTime() - DAY_MS));
  const recent = await addMember(monthsBefore(NOW, 12));
  const justInside = await addMember(new Date(monthsBefore(NOW, 13).getTime() + DAY_MS));
  const active = await addMember(null);

  const { purged } = await purgeCancelledProfiles(db, NOW);
  expect(purged).toBe(1);

  const subs = [expired, recent, justInside, active];
  const profiles = await db
    .select({ sub: memberProfiles.sub })
    .from(memberProfiles)
    .where(inArray(memberProfiles.sub, subs));
  expect(profiles.map((row) => row.sub).sort()).toEqual([recent, justInside, active].sort());
  expect(await db.select().from(memberSessions).where(eq(memberSessions.sub, expired))).toEqual([]);
  expect(await db.select().from(memberSessions).where(eq(memberSessions.sub, recent))).toHaveLength(1);
  expect(await db.select().from(memberSignOuts).where(eq(memberSignOuts.sub, expired))).toEqual([]);
  expect(await db.select().from(memberSignOuts).where(eq(memberSignOuts.sub, recent))).toHaveLength(1);
  expect(await db.select().from(invitationResends).where(eq(invitationResends.sub, expired))).toEqual([]);
  expect(await db.select().from(invitationResends).where(eq(invitationResends.sub, recent))).toHaveLength(1);
  expect(await db.select().from(memberPasskeys).where(eq(memberPasskeys.sub, expired))).toEqual([]);
  expect(await db.select().from(memberPasskeys).where(eq(memberPasskeys.sub, recent))).toHaveLength(1);
  // Withdrawal reasons are statistics: kept, but their free text (which may name the member) goes.
  const reasons = await db.select().from(withdrawalReasons).where(eq(withdrawalReasons.sub, expired));
  expect(reasons.map(({ reason, detail }) => ({ reason, detail }))).toEqual([{ reason: "other", detail: null }]);
  const [recentReason] = await db.select().from(withdrawalReasons).where(eq(withdrawalReasons.sub, recent));
  expect(recentReason?.detail).toBe("山田が書いた理由");

  // Running again the same day changes nothing; two days later the one just inside goes, the 12-month-old stays.
  expect((await purgeCancelledProfiles(db, NOW)).purged).toBe(0);
  const later = new Date(NOW.getTime() + 2 * DAY_MS);
  expect((await purgeCancelledProfiles(db, later)).purged).toBe(1);
  const left = await db
    .select({ sub: memberProfiles.sub })
    .from(memberProfiles)
    .where(inArray(memberProfiles.sub, subs));
  expect(left.map((row) => row.sub).sort()).toEqual([recent, active].sort());
});

test("a cancellation whose Cognito user is still to be deleted is not purged: its record is what asks for the deletion", async () => {
  const { db } = database();
  const owed = await addMember(new Date(monthsBefore(NOW, 14).getTime()));
  await db.update(memberProfiles).set({ cognitoDeletedAt: null }).where(eq(memberProfiles.sub, owed));
  await purgeCancelledProfiles(db, NOW);
  expect(await db.select().from(memberProfiles).where(eq(memberProfiles.sub, owed))).toHaveLength(1);
});

async function addSession(sub: string, values: Partial<typeof memberSessions.$inferInsert>) {
  const [row] = await database()
    .db.insert(memberSessions)
    .values({
      sub,
      email: "x@example.jp",
      deviceKey: crypto.randomUUID(),
      deviceName: "d",
      browser: "b",
      refreshTokenEncrypted: crypto.randomUUID(),
      ...values,
    })
    .returning({ id: memberSessions.id });
  return row!.id;
}

async function addEmailChangeToken(sub: string, expiresAt: Date) {
  const tokenHash = crypto.randomUUID();
  await database()
    .db.insert(emailChangeTokens)
    .values({ tokenHash, sub, oldEmail: "a@example.jp", newEmail: "b@example.jp", expiresAt });
  return tokenHash;
}

test("ended sessions and e-mail-change tokens are purged after their retention, by the injected clock", async () => {
  const { db } = database();
  const sub = crypto.randomUUID();
  const endedLongAgo = new Date(NOW.getTime() - (ENDED_SESSION_RETENTION_DAYS + 1) * DAY_MS);
  const endedRecently = new Date(NOW.getTime() - (ENDED_SESSION_RETENTION_DAYS - 1) * DAY_MS);
  const old = await addSession(sub, { revokedAt: endedLongAgo, refreshTokenRevokedAt: endedLongAgo });
  const recent = await addSession(sub, { revokedAt: endedRecently, refreshTokenRevokedAt: endedRecently });
  // Its revocation was never confirmed: kept, since the row is the only place the token is to retry it.
  const owedRevocation = await addSession(sub, { revokedAt: endedLongAgo });
  const owedTooLong = await addSession(sub, {
    revokedAt: new Date(NOW.getTime() - (OWED_REVOCATION_GIVE_UP_DAYS + 1) * DAY_MS),
  });
  const live = await addSession(sub, { activatedAt: endedLongAgo });
  const abandonedPending = await addSession(sub, {
    createdAt: new Date(NOW.getTime() - PENDING_SIGN_IN_TTL_MS - 1000),
  });
  const expiredToken = await addEmailChangeToken(
    sub,
    new Date(NOW.getTime() - (EMAIL_CHANGE_TOKEN_RETENTION_DAYS + 1) * DAY_MS),
  );
  const freshToken = await addEmailChangeToken(
    sub,
    new Date(NOW.getTime() - (EMAIL_CHANGE_TOKEN_RETENTION_DAYS - 1) * DAY_MS),
  );

  const report = await runPurge({ db, config: { sessionSecrets: [] } }, NOW);
  // Other tests' rows are purged too: the counts are at least this test's.
  expect(report.endedSessions).toBeGreaterThanOrEqual(1);
  expect(report.emailChangeTokens).toBeGreaterThanOrEqual(1);
  expect(report).toMatchObject({ cognitoDeletions: null, revocations: null });

  const sessions = await db.select().from(memberSessions).where(eq(memberSessions.sub, sub));
  expect(sessions.map((row) => row.id).sort()).toEqual([recent, owedRevocation, live, abandonedPending].sort());
  expect(sessions.find((row) => row.id === old)).toBeUndefined();
  expect(sessions.find((row) => row.id === owedTooLong)).toBeUndefined();
  // A sign-in left on the device-limit screen is ended, so its refresh token gets revoked too.
  expect(sessions.find((row) => row.id === abandonedPending)?.revokedAt).toEqual(NOW);
  expect(sessions.find((row) => row.id === live)?.revokedAt).toBeNull();
  const tokens = await db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, sub));
  expect(tokens.map((row) => row.tokenHash)).toEqual([freshToken]);
  expect(tokens.find((row) => row.tokenHash === expiredToken)).toBeUndefined();
});

test("staff sessions: expired ones end as of their expiry, tokens past 8 hours are cleared, ended ones go after the members' retention", async () => {
  const { db } = database();
  const sub = crypto.randomUUID();
  const ago = (ms: number) => new Date(NOW.getTime() - ms);
  const HOUR_MS = 60 * 60 * 1000;
  const addStaffSession = async (values: Partial<typeof staffSessions.$inferInsert>) => {
    const createdAt = values.createdAt ?? ago(HOUR_MS);
    const [row] = await db
      .insert(staffSessions)
      .values({
        sub,
        email: "staff@example.jp",
        refreshTokenEncrypted: "v1.token.sealed",
        createdAt,
        lastSeenAt: createdAt,
        passwordVerifiedAt: createdAt,
        ...values,
      })
      .returning({ id: staffSessions.id });
    return row!.id;
  };
  const retention = ENDED_SESSION_RETENTION_DAYS * DAY_MS;
  const endedLongAgo = await addStaffSession({ endedAt: ago(retention + DAY_MS), refreshTokenEncrypted: null });
  const endedRecently = await addStaffSession({ endedAt: ago(retention - DAY_MS), refreshTokenEncrypted: null });
  const live = await addStaffSession({ lastSeenAt: ago(5 * 60 * 1000) });
  // Left idle, within its 8 hours: ended as of its idle end, its token kept for the revocation owed.
  const idle = await addStaffSession({ createdAt: ago(2 * HOUR_MS), lastSeenAt: ago(STAFF_SESSION_IDLE_MS + HOUR_MS) });
  // Busy past its 8 hours: ended at its eighth hour; Cognito takes its token no more, so the row lets go of it.
  const pastEightHours = await addStaffSession({
    createdAt: ago(STAFF_SESSION_MAX_MS + HOUR_MS),
    lastSeenAt: ago(60_000),
  });
  const owedTooLong = await addStaffSession({
    createdAt: ago(STAFF_SESSION_MAX_MS + HOUR_MS),
    endedAt: ago(2 * HOUR_MS),
  });
  // Expired more than the retention ago, never noticed: ended as of then, so gone in the same run.
  const forgotten = await addStaffSession({ createdAt: ago(retention + 2 * DAY_MS) });

  const report = await runPurge({ db, config: { sessionSecrets: [] } }, NOW);
  expect(report.endedStaffSessions).toBeGreaterThanOrEqual(2);
  expect(report.staffRevocations).toBeNull();

  const rows = await db.select().from(staffSessions).where(eq(staffSessions.sub, sub));
  const byId = new Map(rows.map((row) => [row.id, row]));
  expect([...byId.keys()].sort()).toEqual([endedRecently, live, idle, pastEightHours, owedTooLong].sort());
  expect(byId.has(endedLongAgo)).toBe(false);
  expect(byId.has(forgotten)).toBe(false);
  expect(byId.get(live)).toMatchObject({ endedAt: null, refreshTokenEncrypted: "v1.token.sealed" });
  expect(byId.get(idle)).toMatchObject({
    endedAt: new Date(ago(STAFF_SESSION_IDLE_MS + HOUR_MS).getTime() + STAFF_SESSION_IDLE_MS),
    refreshTokenEncrypted: "v1.token.sealed",
  });
  expect(byId.get(pastEightHours)).toMatchObject({ endedAt: ago(HOUR_MS), refreshTokenEncrypted: null });
  expect(byId.get(owedTooLong)?.refreshTokenEncrypted).toBeNull();
});

test("expired sign-in alert links, and sent or abandoned mail after its retention, are purged", async () => {
  const { db } = database();
  const sub = crypto.randomUUID();
  const alertLink = (expiresAt: Date) => ({
    tokenHash: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    sub,
    expiresAt,
  });
  const expiredLink = alertLink(new Date(NOW.getTime() - 1000));
  const liveLink = alertLink(new Date(NOW.getTime() + DAY_MS));
  await db.insert(signInAlertTokens).values([expiredLink, liveLink]);
  const old = new Date(NOW.getTime() - (MAIL_OUTBOX_RETENTION_DAYS + 1) * DAY_MS);
  const recent = new Date(NOW.getTime() - (MAIL_OUTBOX_RETENTION_DAYS - 1) * DAY_MS);
  const mail = (label: string, values: Partial<typeof mailOutbox.$inferInsert>) => ({
    kind: "passwordChanged",
    recipient: `${label}-${sub.slice(0, 8)}@example.jp`,
    locale: "ja",
    details: { changedAt: old.toISOString() },
    ...values,
  });
  await db.insert(mailOutbox).values([
    mail("sent-long-ago", { createdAt: old, sentAt: old }),
    mail("abandoned-long-ago", { createdAt: old, abandonedAt: old }),
    mail("sent-recently", { createdAt: recent, sentAt: recent }),
    // Still being tried, however old: never purged before it is sent or given up.
    mail("still-owed", { createdAt: old }),
  ]);

  const report = await runPurge({ db, config: { sessionSecrets: [] } }, NOW);
  expect(report.signInAlertTokens).toBeGreaterThanOrEqual(1);
  expect(report.finishedMail).toBeGreaterThanOrEqual(2);
  const links = await db.select().from(signInAlertTokens).where(eq(signInAlertTokens.sub, sub));
  expect(links.map((row) => row.tokenHash)).toEqual([liveLink.tokenHash]);
  const kept = await db.select({ recipient: mailOutbox.recipient }).from(mailOutbox);
  const mine = kept.map((row) => row.recipient).filter((recipient) => recipient.includes(sub.slice(0, 8)));
  expect(mine.sort()).toEqual([
    `sent-recently-${sub.slice(0, 8)}@example.jp`,
    `still-owed-${sub.slice(0, 8)}@example.jp`,
  ]);
});

// Two connections are needed to hold the lock elsewhere: PostgreSQL only (PGlite has one connection).
test.runIf(!!process.env.TEST_DATABASE_URL)(
  "the purge runs under an advisory lock: a run while another holds it does nothing",
  async () => {
    const { db } = database();
    expect(await runPurgeExclusively({ db, config: { sessionSecrets: [] } }, NOW)).not.toBeNull();
    // Held by an open transaction (another instance's run): this run is skipped, not run twice.
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${PURGE_LOCK_KEY})`);
      expect(await runPurgeExclusively({ db, config: { sessionSecrets: [] } }, NOW)).toBeNull();
    });
  },
);

test("the server process's schedule runs the purge by its clock", async () => {
  const { db } = database();
  const sub = crypto.randomUUID();
  // Expires tomorrow by the real clock: only a clock a month ahead finds it past its retention.
  const token = await addEmailChangeToken(sub, new Date(Date.now() + DAY_MS));
  const monthAhead = new Date(Date.now() + (EMAIL_CHANGE_TOKEN_RETENTION_DAYS + 30) * DAY_MS);
  const runsBefore = await purgeRuns();
  // No earlier turn in this database (another run of this file) holds the schedule back.
  await db.delete(scheduledJobTurns);
  const stop = schedulePurge(
    { db, config: { sessionSecrets: [] }, clock: { now: () => monthAhead } },
    { firstRunDelayMs: 0, intervalMs: 60_000 },
  );
  try {
    await vi.waitFor(
      async () =>
        expect(await db.select().from(emailChangeTokens).where(eq(emailChangeTokens.tokenHash, token))).toEqual([]),
      { timeout: 15_000, interval: 100 },
    );
    // The operators' metrics count the run (docs/deployment.md, "Metrics").
    await vi.waitFor(async () => expect(await purgeRuns()).toBe(runsBefore + 1), { timeout: 5_000, interval: 50 });
    expect((await metricsExposition()).body).toMatch(/^job_last_success_timestamp_seconds\{job="purge"\} \d/m);
  } finally {
    stop();
  }
});

/** The purge runs this process has counted in its metrics. */
async function purgeRuns(): Promise<number> {
  const { body } = await metricsExposition();
  return Number(/^job_runs_total\{job="purge",outcome="ran"\} (\d+)$/m.exec(body)?.[1] ?? 0);
}
