import { eq, inArray } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberProfiles, memberSessions, memberSignOuts, withdrawalReasons } from "../../db/schema";
import {
  CANCELLED_DATA_RETENTION_MONTHS,
  purgeCancelledProfiles,
  retentionCutoff,
} from "~/domain/withdrawal.server";
import { useTestDatabase } from "../support/test-database";

const database = useTestDatabase("withdrawal-purge");
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
  await db.insert(memberProfiles).values({ sub, familyName: "山田", givenName: "太郎", cancelledAt });
  await db.insert(memberSessions).values({
    sub,
    email: `${sub.slice(0, 8)}@example.jp`,
    deviceKey: "k",
    deviceName: "d",
    browser: "b",
    refreshTokenEncrypted: "x",
    revokedAt: cancelledAt,
  });
  await db.insert(memberSignOuts).values({ sub, signedOutAt: cancelledAt ?? NOW });
  if (cancelledAt) {
    await db
      .insert(withdrawalReasons)
      .values({ sub, reason: "other", detail: "山田が書いた理由", locale: "ja", createdAt: cancelledAt });
  }
  return sub;
}

test("the retention period is 13 months", () => {
  expect(CANCELLED_DATA_RETENTION_MONTHS).toBe(13);
  expect(retentionCutoff(NOW).toISOString()).toBe("2025-10-21T03:00:00.000Z");
  // Month ends clamp rather than roll over.
  expect(retentionCutoff(new Date("2026-03-31T00:00:00Z")).toISOString()).toBe("2025-02-28T00:00:00.000Z");
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
  const profiles = await db.select({ sub: memberProfiles.sub }).from(memberProfiles).where(inArray(memberProfiles.sub, subs));
  expect(profiles.map((row) => row.sub).sort()).toEqual([recent, justInside, active].sort());
  expect(await db.select().from(memberSessions).where(eq(memberSessions.sub, expired))).toEqual([]);
  expect(await db.select().from(memberSessions).where(eq(memberSessions.sub, recent))).toHaveLength(1);
  expect(await db.select().from(memberSignOuts).where(eq(memberSignOuts.sub, expired))).toEqual([]);
  expect(await db.select().from(memberSignOuts).where(eq(memberSignOuts.sub, recent))).toHaveLength(1);
  // Withdrawal reasons are statistics: kept, but their free text (which may name the member) goes.
  const reasons = await db.select().from(withdrawalReasons).where(eq(withdrawalReasons.sub, expired));
  expect(reasons.map(({ reason, detail }) => ({ reason, detail }))).toEqual([{ reason: "other", detail: null }]);
  const [recentReason] = await db.select().from(withdrawalReasons).where(eq(withdrawalReasons.sub, recent));
  expect(recentReason?.detail).toBe("山田が書いた理由");

  // Running again the same day changes nothing; two days later the one just inside goes, the 12-month-old stays.
  expect((await purgeCancelledProfiles(db, NOW)).purged).toBe(0);
  const later = new Date(NOW.getTime() + 2 * DAY_MS);
  expect((await purgeCancelledProfiles(db, later)).purged).toBe(1);
  const left = await db.select({ sub: memberProfiles.sub }).from(memberProfiles).where(inArray(memberProfiles.sub, subs));
  expect(left.map((row) => row.sub).sort()).toEqual([recent, active].sort());
});
