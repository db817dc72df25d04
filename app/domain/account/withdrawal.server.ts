import { and, eq, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import type { Database } from "~db/client.server";
import {
  legacyCredentials,
  memberProfiles,
  memberSessions,
  memberSignOuts,
  invitationResends,
  recoveryCodes,
  twoStepVerifications,
  memberPasskeys,
  secondStepChallenges,
  unknownPasskeys,
  withdrawalReasons,
} from "~db/schema";
import { DomainError } from "../domain-error.server";
import { checkMemberPassword } from "./reauthentication.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { recordAccountEvent, recordAccountEvents } from "../events/account-events.server";
import { endSessions } from "../sessions/session-ending.server";
import { purgeSecurityEventsOf } from "../security/security-record.server";
import type { WithdrawalReason } from "../forms/form-choices";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { isLocale } from "~/i18n/locales";

/** A cancelled member's data is kept as backup for 13 months, then purged (`npm run purge`). */
export const CANCELLED_DATA_RETENTION_MONTHS = 13;

export type WithdrawalDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

type CognitoDeletionDependencies = { db: Database; identity: Pick<IdentityProvider, "deleteUser"> };

export interface CancellationInput {
  sub: string;
  email: string;
  password: string;
  reason: WithdrawalReason;
  detail?: string | undefined;
  locale: string;
}

/**
 * Cancels a membership. The password is checked by signing in at Cognito (a wrong one comes out as the result
 * "passwordMismatch"; other Cognito failures throw DomainError, and nothing changed). Then the cancellation is
 * recorded in one transaction under the member's session lock: the reason, every session ended, the profile marked
 * cancelled with its Cognito deletion owed, and the confirmation mail queued (in the member's preferred language,
 * else the page's). From that commit on the member is out (no sign-in can start a session
 * of a cancelled member, see startSession), so the Cognito user is deleted only afterwards: if that fails or times
 * out, the record says so and finishOwedCognitoDeletions (the purge job) completes it; "user not found" counts as
 * done. A repeated submission finds the cancellation recorded and changes nothing. The sessions' refresh tokens are
 * revoked as they end (endSessions, with retries); the check's sign-in is the server-only client's, which keeps no
 * refresh token.
 */
export async function cancelMembership(
  deps: WithdrawalDependencies,
  input: CancellationInput,
): Promise<{ kind: "cancelled"; endedSessions: number; cognitoDeleted: boolean } | { kind: "passwordMismatch" }> {
  const now = deps.clock.now();
  try {
    await checkMemberPassword(deps, input);
  } catch (error) {
    if (error instanceof DomainError && error.code === "currentPasswordMismatch") return { kind: "passwordMismatch" };
    throw error;
  }
  let cancellationMailQueued = false;
  // Recorded under the member's session lock, with every session's end, so no sign-in slips a session in meanwhile.
  const ended = await endSessions(
    deps,
    { sub: input.sub, all: true },
    {
      alongside: async (tx) => {
        const [profile] = await tx
          .select({ cancelledAt: memberProfiles.cancelledAt })
          .from(memberProfiles)
          .where(eq(memberProfiles.sub, input.sub));
        if (!profile?.cancelledAt) {
          // In the cancellation's transaction, so the confirmation goes out exactly when the cancellation stands;
          // before a missing profile row is made, whose default language would stand for the page's.
          await queueMail(tx, {
            kind: "membershipCancelled",
            details: { cancelledAt: now.toISOString() },
            recipient: input.email,
            sub: input.sub,
            requestLocale: isLocale(input.locale) ? input.locale : "ja",
            now,
          });
          cancellationMailQueued = true;
          await tx.insert(withdrawalReasons).values({
            sub: input.sub,
            reason: input.reason,
            detail: input.reason === "other" ? (input.detail ?? null) : null,
            locale: input.locale,
            createdAt: now,
          });
          // A member who never filled the profile has no row yet: one is made, so the purge job finds every cancellation.
          await tx
            .insert(memberProfiles)
            .values({ sub: input.sub, cancelledAt: now, cognitoDeletedAt: null, updatedAt: now })
            .onConflictDoUpdate({
              target: memberProfiles.sub,
              set: { cancelledAt: now, cognitoDeletedAt: null, updatedAt: now },
            });
          await recordAccountEvent(tx, {
            type: "member.withdrawn",
            sub: input.sub,
            occurredAt: now,
            data: { withdrawnAt: now.toISOString() },
          });
        }
      },
      reason: "withdrawn",
    },
  );
  if (cancellationMailQueued) ringMailOutbox();
  const cognitoDeleted = await deleteCognitoUser(deps, input.sub);
  return { kind: "cancelled", endedSessions: ended.length, cognitoDeleted };
}

/**
 * Deletes a cancelled member's Cognito user by sub (never by address: once the user is gone the address may sign up
 * again, and a late retry must not delete the newcomer) and records it. "User not found" means an earlier try that
 * timed out did it. Returns false, leaving the deletion owed, when Cognito could not answer.
 */
async function deleteCognitoUser(deps: CognitoDeletionDependencies, sub: string): Promise<boolean> {
  try {
    await deps.identity.deleteUser(sub);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "userNotFound")) {
      logger.warn({ err: error }, "could not delete a cancelled member's Cognito user; the purge job will retry");
      return false;
    }
  }
  await deps.db
    .update(memberProfiles)
    .set({ cognitoDeletedAt: new Date() })
    .where(and(eq(memberProfiles.sub, sub), isNotNull(memberProfiles.cancelledAt)));
  return true;
}

/** The purge job's part of cancellation: deletes the Cognito users of cancellations whose deletion is owed. */
export async function finishOwedCognitoDeletions(
  deps: CognitoDeletionDependencies,
): Promise<{ deleted: number; owed: number }> {
  const owed = await deps.db
    .select({ sub: memberProfiles.sub })
    .from(memberProfiles)
    .where(and(isNotNull(memberProfiles.cancelledAt), isNull(memberProfiles.cognitoDeletedAt)));
  let deleted = 0;
  for (const { sub } of owed) if (await deleteCognitoUser(deps, sub)) deleted++;
  return { deleted, owed: owed.length - deleted };
}

/** `now` minus the retention period, in calendar months (UTC); the day is clamped at the month's end. */
export function retentionCutoff(now: Date, months = CANCELLED_DATA_RETENTION_MONTHS): Date {
  const cutoff = new Date(now.getTime());
  const day = cutoff.getUTCDate();
  cutoff.setUTCDate(1);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(cutoff.getUTCFullYear(), cutoff.getUTCMonth() + 1, 0)).getUTCDate();
  cutoff.setUTCDate(Math.min(day, lastDay));
  return cutoff;
}

/**
 * Removes the data of members cancelled more than CANCELLED_DATA_RETENTION_MONTHS before `now` (and whose Cognito
 * user is gone: an owed deletion keeps the record that asks for it): the profile, the
 * (already ended) session rows, which hold the e-mail and device names, the time of the last sign-out everywhere, the
 * security record, the 2-step verification flag and recovery codes, the list of passkeys (Cognito's went with the user), and a migrated legacy account's old credentials. Withdrawal reasons stay: they are statistics whose only link
 * to a person is the sub, which no longer leads anywhere. Returns the purged subs' count.
 */
export async function purgeCancelledProfiles(db: Database, now: Date): Promise<{ purged: number }> {
  const cutoff = retentionCutoff(now);
  return db.transaction(async (tx) => {
    const purged = await tx
      .delete(memberProfiles)
      .where(
        and(
          isNotNull(memberProfiles.cancelledAt),
          lt(memberProfiles.cancelledAt, cutoff),
          isNotNull(memberProfiles.cognitoDeletedAt),
        ),
      )
      .returning({ sub: memberProfiles.sub });
    const subs = purged.map((row) => row.sub);
    await recordAccountEvents(
      tx,
      subs.map((sub) => ({ type: "member.deleted", sub, occurredAt: now, data: {} })),
    );
    if (subs.length > 0) {
      await tx.delete(memberSessions).where(inArray(memberSessions.sub, subs));
      await tx.delete(memberSignOuts).where(inArray(memberSignOuts.sub, subs));
      await tx.delete(invitationResends).where(inArray(invitationResends.sub, subs));
      await tx.delete(memberPasskeys).where(inArray(memberPasskeys.sub, subs));
      await tx.delete(unknownPasskeys).where(inArray(unknownPasskeys.sub, subs));
      await tx.delete(secondStepChallenges).where(inArray(secondStepChallenges.sub, subs));
      await purgeSecurityEventsOf(tx, subs);
      await tx.delete(twoStepVerifications).where(inArray(twoStepVerifications.sub, subs));
      await tx.delete(recoveryCodes).where(inArray(recoveryCodes.sub, subs));
      await tx.delete(legacyCredentials).where(inArray(legacyCredentials.migratedSub, subs));
      // The reason stays as a statistic; its free text may name the member, so it goes with the profile.
      await tx.update(withdrawalReasons).set({ detail: null }).where(inArray(withdrawalReasons.sub, subs));
    }
    return { purged: subs.length };
  });
}
