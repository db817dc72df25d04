import { and, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Database } from "../../db/client.server";
import { legacyCredentials, memberProfiles, memberSessions, memberSignOuts, withdrawalReasons } from "../../db/schema";
import { IdentityError } from "~/integrations/cognito/cognito-errors.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import { revokeRefreshTokens } from "./member-session.server";
import type { WithdrawalReason } from "./withdrawal-schema";

/** Spec section 9: a cancelled member's data is kept as backup for 13 months, then purged (`npm run purge`). */
export const CANCELLED_DATA_RETENTION_MONTHS = 13;

export interface WithdrawalDependencies {
  db: Database;
  identity: Pick<IdentityProvider, "signIn" | "deleteUser" | "revokeRefreshToken">;
  secrets: string[];
}

export interface CancellationInput {
  sub: string;
  email: string;
  password: string;
  reason: WithdrawalReason;
  detail?: string | undefined;
  locale: string;
  now?: Date;
}

/**
 * Cancels a membership. The password is checked by signing in at Cognito (a wrong one comes out as the
 * result "passwordMismatch"; other Cognito failures throw IdentityError); then, in one transaction, the reason is stored, every session of
 * the member ends and the profile is marked cancelled, and, last inside it, the Cognito user is deleted so the
 * address can sign up again. If Cognito cannot delete the user, the transaction rolls back and nothing changed.
 * Refresh tokens (the sessions' and the check's own) are revoked afterwards, best effort.
 */
export async function cancelMembership(
  deps: WithdrawalDependencies,
  input: CancellationInput,
): Promise<{ kind: "cancelled"; endedSessions: number } | { kind: "passwordMismatch" }> {
  const now = input.now ?? new Date();
  let checkRefreshToken: string | undefined;
  try {
    ({ refreshToken: checkRefreshToken } = await deps.identity.signIn({ email: input.email, password: input.password }));
  } catch (error) {
    if (error instanceof IdentityError && (error.code === "invalidCredentials" || error.code === "userNotFound")) {
      return { kind: "passwordMismatch" };
    }
    throw error;
  }
  const ended = await deps.db.transaction(async (tx) => {
    // The same per-member lock as the session code, so no sign-in slips a session in meanwhile.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${input.sub}, 0))`);
    await tx.insert(withdrawalReasons).values({
      sub: input.sub,
      reason: input.reason,
      detail: input.reason === "other" ? (input.detail ?? null) : null,
      locale: input.locale,
      createdAt: now,
    });
    const sessions = await tx
      .update(memberSessions)
      .set({ revokedAt: now })
      .where(and(eq(memberSessions.sub, input.sub), isNull(memberSessions.revokedAt)))
      .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
    // A member who never filled the profile has no row yet: one is made, so the purge job finds every cancellation.
    await tx
      .insert(memberProfiles)
      .values({ sub: input.sub, cancelledAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: memberProfiles.sub, set: { cancelledAt: now, updatedAt: now } });
    await deps.identity.deleteUser(input.email);
    return sessions.map((row) => row.refreshTokenEncrypted);
  });
  await revokeRefreshTokens(deps, ended);
  if (checkRefreshToken) {
    await deps.identity
      .revokeRefreshToken(checkRefreshToken)
      .catch((error: unknown) => logger.warn({ err: error }, "could not revoke the cancellation check's refresh token"));
  }
  return { kind: "cancelled", endedSessions: ended.length };
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
 * Removes the data of members cancelled more than CANCELLED_DATA_RETENTION_MONTHS before `now`: the profile, the
 * (already ended) session rows, which hold the e-mail and device names, the time of the last sign-out everywhere,
 * and a migrated legacy account's old credentials. Withdrawal reasons stay: they are statistics whose only link
 * to a person is the sub, which no longer leads anywhere. Returns the purged subs' count.
 */
export async function purgeCancelledProfiles(db: Database, now: Date): Promise<{ purged: number }> {
  const cutoff = retentionCutoff(now);
  return db.transaction(async (tx) => {
    const purged = await tx
      .delete(memberProfiles)
      .where(and(isNotNull(memberProfiles.cancelledAt), lt(memberProfiles.cancelledAt, cutoff)))
      .returning({ sub: memberProfiles.sub });
    const subs = purged.map((row) => row.sub);
    if (subs.length > 0) {
      await tx.delete(memberSessions).where(inArray(memberSessions.sub, subs));
      await tx.delete(memberSignOuts).where(inArray(memberSignOuts.sub, subs));
      await tx.delete(legacyCredentials).where(inArray(legacyCredentials.migratedSub, subs));
      // The reason stays as a statistic; its free text may name the member, so it goes with the profile.
      await tx.update(withdrawalReasons).set({ detail: null }).where(inArray(withdrawalReasons.sub, subs));
    }
    return { purged: subs.length };
  });
}
