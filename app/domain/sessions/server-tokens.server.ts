import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { decodeJwt } from "jose";
import type { Database } from "~db/client.server";
import { memberSessions, sessionServerTokens } from "~db/schema";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import { decryptSecret, encryptSecret } from "./refresh-tokens.server";

/**
 * A server token closer than this to its end is not handed to a credential change: the change's Cognito calls
 * (two for a passkey, with the member at the browser's prompt between them) must not meet an expired token halfway.
 */
export const SERVER_TOKEN_MARGIN_MS = 60_000;

/** Keeps the session's server token (app/integrations/cognito/member-flows.server.ts), replacing an earlier one. */
export async function keepServerToken(
  db: Database,
  input: { sessionId: string; token: ServerToken; secrets: string[] },
): Promise<void> {
  const row = {
    sessionId: input.sessionId,
    sub: input.token.sub,
    accessTokenEncrypted: encryptSecret(input.token.accessToken, input.secrets),
    expiresAt: input.token.expiresAt,
  };
  await db
    .insert(sessionServerTokens)
    .values(row)
    .onConflictDoUpdate({ target: sessionServerTokens.sessionId, set: row });
}

/** Forgets the session's server token: Cognito is about to revoke it (a global sign-out the session outlives). */
export async function forgetServerToken(db: Database, sessionId: string): Promise<void> {
  await db.delete(sessionServerTokens).where(eq(sessionServerTokens.sessionId, sessionId));
}

/**
 * The live session's server token, when it has at least SERVER_TOKEN_MARGIN_MS left; null otherwise (none was made
 * on this session, it ran out, the session ended, or it is not this member's). Its expiry is Cognito's, so it is read
 * against the real time, not the app's clock (which the dev tools and tests may move).
 */
export async function serverTokenOf(
  db: Database,
  input: { sessionId: string; sub: string; secrets: string[] },
): Promise<ServerToken | null> {
  const [row] = await db
    .select({
      accessTokenEncrypted: sessionServerTokens.accessTokenEncrypted,
      expiresAt: sessionServerTokens.expiresAt,
    })
    .from(sessionServerTokens)
    .innerJoin(memberSessions, eq(memberSessions.id, sessionServerTokens.sessionId))
    .where(
      and(
        eq(sessionServerTokens.sessionId, input.sessionId),
        eq(sessionServerTokens.sub, input.sub),
        eq(memberSessions.sub, input.sub),
        isNull(memberSessions.revokedAt),
        gt(sessionServerTokens.expiresAt, new Date(Date.now() + SERVER_TOKEN_MARGIN_MS)),
      ),
    );
  const accessToken = row ? decryptSecret(row.accessTokenEncrypted, input.secrets) : null;
  if (!row || !accessToken) return null;
  return keptServerToken({ accessToken, sub: input.sub, expiresAt: row.expiresAt });
}

/** A server token as our database kept it: our own encrypted copy of what Cognito issued, so decoding is enough. */
export function keptServerToken(input: { accessToken: string; sub: string; expiresAt: Date }): ServerToken {
  const username = String(decodeJwt(input.accessToken).username ?? input.sub);
  return { kind: "server", accessToken: input.accessToken, sub: input.sub, username, expiresAt: input.expiresAt };
}

/** Deletes server tokens that have run out (the purge's sweep); answers how many. */
export async function deleteExpiredServerTokens(db: Database, now: Date): Promise<number> {
  const deleted = await db
    .delete(sessionServerTokens)
    .where(lt(sessionServerTokens.expiresAt, now))
    .returning({ sessionId: sessionServerTokens.sessionId });
  return deleted.length;
}
