import { type SQL, and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { staffSessions } from "~db/schema";
import type { AppServices } from "~/services.server";
import { decryptSecret, revokeWithRetries } from "./refresh-tokens.server";

/*
 * The end of staff sessions (app/domain/sessions/staff-sessions.server.ts) as the members' session ending
 * (session-ending.server.ts) takes it into its own transaction: the rows end inside the caller's transaction, and
 * their staff refresh tokens are revoked after it has committed.
 */

/** Which staff sessions end: one by its id, or every one of a member. */
export type StaffSessionsToEnd = { sessionId: string } | { sub: string };

export interface EndedStaffSession {
  id: string;
  /** Null when nothing is left to revoke (Cognito already refused the token). */
  refreshTokenEncrypted: string | null;
}

/**
 * Ends the staff sessions `which` names inside the caller's transaction: whoever calls it revokes the returned
 * rows' refresh tokens (revokeStaffRefreshTokens) once the transaction has committed. With `refreshRefused`,
 * Cognito already refused the token, so the row lets go of it at once.
 */
export async function endStaffSessionRows(
  tx: Database,
  which: StaffSessionsToEnd,
  now: Date,
  options: { refreshRefused?: boolean } = {},
): Promise<EndedStaffSession[]> {
  const condition: SQL =
    "sessionId" in which ? eq(staffSessions.id, which.sessionId) : eq(staffSessions.sub, which.sub);
  return tx
    .update(staffSessions)
    .set(options.refreshRefused ? { endedAt: now, refreshTokenEncrypted: null } : { endedAt: now })
    .where(and(condition, isNull(staffSessions.endedAt)))
    .returning({ id: staffSessions.id, refreshTokenEncrypted: staffSessions.refreshTokenEncrypted });
}

/** What revoking staff refresh tokens needs: narrower than the app's services, for the purge command. */
export interface StaffRevocationServices {
  db: Database;
  identity: Pick<AppServices["identity"], "staffRevokeRefreshToken">;
  config: Pick<AppServices["config"], "sessionSecrets">;
  /** The pauses between tries (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

/**
 * Revokes ended staff sessions' refresh tokens through the staff client, with the members' retries
 * (revokeWithRetries). A revoked token is cleared from its row: an ended session keeps no token. One Cognito could
 * not confirm stays on its row, owed, for the purge job (revokeOwedStaffRefreshTokens); the row's end is what
 * closes the staff area meanwhile.
 */
export async function revokeStaffRefreshTokens(
  services: StaffRevocationServices,
  ended: EndedStaffSession[],
): Promise<void> {
  const revoke = (token: string) => services.identity.staffRevokeRefreshToken(token);
  const revoked: string[] = [];
  await Promise.all(
    ended.map(async (row) => {
      if (!row.refreshTokenEncrypted) return;
      const refreshToken = decryptSecret(row.refreshTokenEncrypted, services.config.sessionSecrets);
      // A token no listed secret opens stays owed, as the members' do: the secrets given may be the wrong ones.
      if (refreshToken && (await revokeWithRetries(revoke, refreshToken, services.retryDelaysMs))) revoked.push(row.id);
    }),
  );
  if (revoked.length === 0) return;
  await services.db
    .update(staffSessions)
    .set({ refreshTokenEncrypted: null })
    .where(and(inArray(staffSessions.id, revoked), isNotNull(staffSessions.endedAt)));
}
