import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { pendingCognitoChanges } from "~db/schema";
import { logger } from "~/integrations/logger.server";
import type { AppServices, Clock } from "~/services.server";
import { ACCOUNT_EVENT_RETENTION_DAYS } from "../events/account-events.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { ringMailOutbox } from "../mail/mail-outbox.server";
import { finishStaffEmailChange, staffEmailChangeHappened } from "../staff/staff-actions.server";
import { repairLegacyMigration } from "./legacy-accounts.server";
import { dropPasskeyNeverAdded, finishPasskeyAdded, passkeyAddHappened } from "./passkeys.server";
import {
  PENDING_COGNITO_CHANGE_SETTLE_MS,
  PENDING_PASSWORD_KINDS,
  type PendingCognitoChange,
  claimPendingCognitoChange,
  dropPendingCognitoChange,
} from "./pending-cognito-changes.server";
import { endSessionsBeforeUnconfirmedPassword } from "./unconfirmed-passwords.server";

/** How long the repair holds a note it took, so another instance's repair passes over it meanwhile. */
export const PENDING_COGNITO_CHANGE_LEASE_MS = 2 * 60 * 1000;

/** The repair runs this often in every server process. */
export const COGNITO_CHANGE_REPAIR_INTERVAL_MS = 60 * 1000;

/**
 * A new password no sign-in settled is forgotten this long after it was noted, announcing nothing (its verifier goes
 * with it): as long as events are kept, so that a sibling could still have heard of it.
 */
export const UNRESOLVED_PASSWORD_RETENTION_DAYS = ACCOUNT_EVENT_RETENTION_DAYS;
const DAY_MS = 24 * 60 * 60 * 1000;

export type CognitoChangeRepairDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export interface CognitoChangeRepairReport {
  /** Changes Cognito had made, recorded now (once). */
  recorded: number;
  /** Notes of changes Cognito never made, dropped with nothing recorded. */
  dropped: number;
  /** Unconfirmed new passwords whose member's sessions were ended. */
  sessionsEnded: number;
  /** Unconfirmed new passwords past UNRESOLVED_PASSWORD_RETENTION_DAYS, forgotten. */
  expired: number;
  /** Notes whose repair failed (Cognito unreachable…), left for a later run. */
  failed: number;
}

/**
 * Takes the oldest note due for the repair: older than the settle time, leased by no one, and not a new password
 * whose sessions were ended already (those wait for a sign-in or their expiry). `for update skip locked` and the
 * lease, in one statement, keep two repairs (two instances) off one note.
 */
async function leaseDueChange(db: Database, now: Date, skip: string[]): Promise<PendingCognitoChange | null> {
  const due = db
    .select({ id: pendingCognitoChanges.id })
    .from(pendingCognitoChanges)
    .where(
      and(
        lte(pendingCognitoChanges.createdAt, new Date(now.getTime() - PENDING_COGNITO_CHANGE_SETTLE_MS)),
        or(isNull(pendingCognitoChanges.leasedUntil), lte(pendingCognitoChanges.leasedUntil, now)),
        or(
          notInArray(pendingCognitoChanges.kind, [...PENDING_PASSWORD_KINDS]),
          and(isNotNull(pendingCognitoChanges.sub), isNull(pendingCognitoChanges.sessionsEndedAt)),
        ),
        skip.length > 0 ? notInArray(pendingCognitoChanges.id, skip) : undefined,
      ),
    )
    .orderBy(asc(pendingCognitoChanges.createdAt))
    .limit(1)
    .for("update", { skipLocked: true });
  const [leased] = await db
    .update(pendingCognitoChanges)
    .set({ leasedUntil: new Date(now.getTime() + PENDING_COGNITO_CHANGE_LEASE_MS) })
    .where(eq(pendingCognitoChanges.id, sql`(${due})`))
    .returning();
  return leased ?? null;
}

/** Records a change Cognito made, in the transaction that claims its note: exactly once, whoever comes first. */
function recordOnce(
  db: Database,
  change: PendingCognitoChange,
  now: Date,
  finish: (tx: Database, change: PendingCognitoChange, now: Date) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await claimPendingCognitoChange(tx, change.id))) return false;
    await finish(tx, change, now);
    return true;
  });
}

/** Asks Cognito what became of one noted change and records it, or drops the note. */
async function repairChange(
  deps: CognitoChangeRepairDependencies,
  change: PendingCognitoChange,
  now: Date,
): Promise<"recorded" | "dropped" | "sessionsEnded" | "none"> {
  switch (change.kind) {
    case "staff-email-change":
      if (await staffEmailChangeHappened(deps.identity, change)) {
        return (await recordOnce(deps.db, change, now, finishStaffEmailChange)) ? "recorded" : "none";
      }
      await dropPendingCognitoChange(deps.db, change.id);
      return "dropped";
    case "passkey-added":
      if (await passkeyAddHappened(deps, change)) {
        const recorded = await recordOnce(deps.db, change, now, finishPasskeyAdded);
        if (recorded) ringMailOutbox();
        return recorded ? "recorded" : "none";
      }
      await dropPasskeyNeverAdded(deps.db, change);
      return "dropped";
    case "legacy-migration":
      return (await repairLegacyMigration(deps, change, now)) ? "recorded" : "dropped";
    default:
      return (await endSessionsBeforeUnconfirmedPassword(deps, change)) ? "sessionsEnded" : "none";
  }
}

/**
 * The repair of changes Cognito may have made without our record (pending-cognito-changes.server.ts): each note
 * older than PENDING_COGNITO_CHANGE_SETTLE_MS is taken in turn and Cognito asked what is true. A staff e-mail change
 * Cognito holds, a passkey it stores, a legacy user it made are recorded as their flows would have (event and all),
 * once; otherwise the note goes and nothing is announced. A new password, which Cognito cannot confirm, ends the
 * member's sessions once and waits for the next password sign-in, or is forgotten after
 * UNRESOLVED_PASSWORD_RETENTION_DAYS. A failure leaves the note to a later run, once its lease has passed.
 */
export async function repairPendingCognitoChanges(
  deps: CognitoChangeRepairDependencies,
  now: Date,
): Promise<CognitoChangeRepairReport> {
  const expired = await deps.db
    .delete(pendingCognitoChanges)
    .where(
      and(
        inArray(pendingCognitoChanges.kind, [...PENDING_PASSWORD_KINDS]),
        lt(pendingCognitoChanges.createdAt, new Date(now.getTime() - UNRESOLVED_PASSWORD_RETENTION_DAYS * DAY_MS)),
      ),
    )
    .returning({ id: pendingCognitoChanges.id });
  const report: CognitoChangeRepairReport = {
    recorded: 0,
    dropped: 0,
    sessionsEnded: 0,
    expired: expired.length,
    failed: 0,
  };
  const failed: string[] = [];
  for (let change = await leaseDueChange(deps.db, now, failed); change;) {
    try {
      const outcome = await repairChange(deps, change, now);
      if (outcome !== "none") report[outcome] += 1;
    } catch (error) {
      logger.warn(
        { err: error, kind: change.kind },
        "could not repair a change noted before Cognito; a later run will",
      );
      failed.push(change.id);
      report.failed += 1;
    }
    change = await leaseDueChange(deps.db, now, failed);
  }
  return report;
}

/**
 * The repair above every COGNITO_CHANGE_REPAIR_INTERVAL_MS in every server process, so that a change cut off by a
 * crash is recorded (or its sessions ended) within minutes. Instances share the notes by their leases.
 */
export function scheduleCognitoChangeRepair(deps: CognitoChangeRepairDependencies & { clock: Clock }): () => void {
  return scheduleRepeating(
    async () => {
      try {
        const report = await repairPendingCognitoChanges(deps, deps.clock.now());
        if (report.recorded + report.dropped + report.sessionsEnded + report.expired + report.failed > 0) {
          logger.info({ cognitoChangeRepair: report }, "changes noted before Cognito repaired");
        }
      } catch (error) {
        logger.warn({ err: error }, "the repair of changes noted before Cognito failed; the next run tries again");
      }
    },
    { firstRunDelayMs: COGNITO_CHANGE_REPAIR_INTERVAL_MS, intervalMs: COGNITO_CHANGE_REPAIR_INTERVAL_MS },
  );
}
