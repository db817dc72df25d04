import { createHash } from "node:crypto";
import { and, eq, isNull, lte, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory, secondStepChallenges } from "~db/schema";
import { type Locale, isLocale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import type { AppServices, Clock } from "~/services.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { describeDevice } from "../sessions/device-description.server";
import { hashDeviceKey, recordUnfinishedSecondStep } from "./security-record.server";
import { twoStepMemberByUsername } from "./two-step-verification.server";

/*
 * A right password followed by no second step is someone holding the password (docs/security.md, "Rate limits"): the
 * member hears of it in their security record and by mail, once per burst. Each password step that meets Cognito's code
 * challenge leaves a row (second_step_challenges) in PostgreSQL, so every instance sees it and a restart loses none;
 * the second step that succeeds in that browser, or any sign-in of the member in it, deletes it; a refused code is
 * noted on it. A job in every server process (scheduleSecondStepReports) reports a member's challenges once all of them
 * have been quiet for SECOND_STEP_ABANDONED_AFTER_MS: one security event for the lot (the refused codes counted) and
 * one mail, written with the rows' deletion in one transaction, so two instances never report the same rows. Strangers
 * without the password cannot add a row, so they cannot fill the record or the mailbox; a holder of the password causes
 * at most one report per quiet quarter hour.
 */
export const SECOND_STEP_ABANDONED_AFTER_MS = 15 * 60 * 1000;
/** How often each server process looks for challenges to report. */
export const SECOND_STEP_REPORT_INTERVAL_MS = 60 * 1000;

const hashOf = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/** The account a challenge names: our 2-step flag's, else the directory's member with that address. */
async function subOfChallenge(db: Database, input: { username: string; email: string }): Promise<string | null> {
  const flagged = await twoStepMemberByUsername(db, input.username);
  if (flagged) return flagged.sub;
  const [listed] = await db
    .select({ sub: memberDirectory.sub })
    .from(memberDirectory)
    .where(
      and(
        sql`${memberDirectory.emailKey} collate "C" = ${input.email.trim().toLowerCase()}`,
        isNull(memberDirectory.missingFromCognitoAt),
      ),
    );
  return listed?.sub ?? null;
}

/**
 * A password step met Cognito's code challenge (`session`): it waits for its second step. A challenge whose account
 * we cannot name (a Cognito user we have no record of) is logged and left out of the report; its codes are still
 * counted (second-step-guard).
 */
export async function openSecondStepChallenge(
  db: Database,
  input: {
    username: string;
    session: string;
    email: string;
    /** Null at the staff sign-in, which keeps no device key. */
    deviceKey: string | null;
    userAgent: string | null;
    clientIp: string;
    locale: Locale;
    now: Date;
  },
): Promise<void> {
  const sub = await subOfChallenge(db, input);
  if (!sub) {
    logger.warn("a second step was asked of an account we have no record of; it is not reported if left");
    return;
  }
  const device = describeDevice(input.userAgent);
  await db
    .insert(secondStepChallenges)
    .values({
      sub,
      challengeHash: hashOf(input.session),
      deviceKeyHash: input.deviceKey ? hashDeviceKey(input.deviceKey) : null,
      email: input.email,
      deviceName: device.deviceName,
      browser: device.browser,
      ipAddress: input.clientIp,
      locale: input.locale,
      startedAt: input.now,
      lastActivityAt: input.now,
    })
    .onConflictDoNothing();
}

/** A code (or recovery code) refused within the challenge of `session`. */
export async function noteRefusedSecondStep(db: Database, input: { session: string; now: Date }): Promise<void> {
  await db
    .update(secondStepChallenges)
    .set({ failures: sql`${secondStepChallenges.failures} + 1`, lastActivityAt: input.now })
    .where(eq(secondStepChallenges.challengeHash, hashOf(input.session)));
}

/** The challenge of `session` was answered: nothing to report of it. */
export async function endSecondStepChallenge(db: Database, session: string): Promise<void> {
  await db.delete(secondStepChallenges).where(eq(secondStepChallenges.challengeHash, hashOf(session)));
}

/**
 * The member signed in in this browser (by code, recovery code, passkey or password): its challenges were the
 * member's own, however they went. Inside the sign-in's transaction.
 */
export async function endBrowserSecondSteps(tx: Database, input: { sub: string; deviceKey: string }): Promise<void> {
  await tx
    .delete(secondStepChallenges)
    .where(
      and(
        eq(secondStepChallenges.sub, input.sub),
        eq(secondStepChallenges.deviceKeyHash, hashDeviceKey(input.deviceKey)),
      ),
    );
}

/**
 * Reports every member whose challenges have all been quiet for SECOND_STEP_ABANDONED_AFTER_MS: per member, in one
 * transaction, the rows deleted (the claim: of two instances, the second finds none), one `second-step-failed` event
 * and one mail. Returns the members reported (their subs).
 */
export async function reportUnfinishedSecondSteps(db: Database, now: Date): Promise<string[]> {
  const cutoff = new Date(now.getTime() - SECOND_STEP_ABANDONED_AFTER_MS);
  const quiet = await db
    .select({ sub: secondStepChallenges.sub })
    .from(secondStepChallenges)
    .groupBy(secondStepChallenges.sub)
    // The bound as text: an aggregate's result has no column type for drizzle to map a Date parameter by.
    .having(sql`max(${secondStepChallenges.lastActivityAt}) <= ${cutoff.toISOString()}::timestamptz`);
  const reported: string[] = [];
  for (const { sub } of quiet) {
    const queued = await db.transaction(async (tx) => {
      const rows = await tx
        .delete(secondStepChallenges)
        .where(and(eq(secondStepChallenges.sub, sub), lte(secondStepChallenges.lastActivityAt, cutoff)))
        .returning();
      if (rows.length === 0) return false;
      const first = rows.reduce((a, b) => (b.startedAt < a.startedAt ? b : a));
      const last = rows.reduce((a, b) => (b.lastActivityAt > a.lastActivityAt ? b : a));
      const refusedCodes = rows.reduce((sum, row) => sum + row.failures, 0);
      await recordUnfinishedSecondStep(tx, {
        sub,
        startedAt: first.startedAt,
        lastTriedAt: last.lastActivityAt,
        refusedCodes,
        deviceName: last.deviceName,
        browser: last.browser,
        ipAddress: last.ipAddress,
      });
      await queueMail(tx, {
        kind: "secondStepUnfinished",
        recipient: last.email,
        sub,
        requestLocale: isLocale(last.locale) ? last.locale : "ja",
        now,
        details: {
          startedAt: first.startedAt.toISOString(),
          refusedCodes: String(refusedCodes),
          device: last.deviceName,
          browser: last.browser,
          clientIp: last.ipAddress,
        },
      });
      return true;
    });
    if (queued) reported.push(sub);
  }
  if (reported.length > 0) ringMailOutbox();
  return reported;
}

/**
 * The report above every SECOND_STEP_REPORT_INTERVAL_MS in every server process: rows live in PostgreSQL, so a
 * challenge left on a stopped instance is reported by another, or after the restart.
 */
export function scheduleSecondStepReports(deps: Pick<AppServices, "db"> & { clock: Clock }): () => void {
  return scheduleRepeating(
    async () => {
      try {
        await reportUnfinishedSecondSteps(deps.db, deps.clock.now());
      } catch (error) {
        logger.warn({ err: error }, "unfinished second steps could not be reported; the next run tries again");
      }
    },
    { firstRunDelayMs: SECOND_STEP_REPORT_INTERVAL_MS, intervalMs: SECOND_STEP_REPORT_INTERVAL_MS },
  );
}
