import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, lt } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { signInAlertTokens } from "~db/schema";
import type { AppServices } from "~/services.server";
import { endSessions } from "../sessions/session-ending.server";

/** A sign-in alert's link works for seven days. */
export const SIGN_IN_ALERT_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Only the SHA-256 of a link's token is ever stored or looked up. */
export function hashSignInAlertToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * A fresh token for a sign-in alert mail's link, made as the mail is sent: 256 random bits, of which only the hash
 * is stored. Sending the alert again (a retry after a lost answer) replaces the session's earlier token.
 */
export async function issueSignInAlertToken(
  deps: Pick<AppServices, "db" | "clock">,
  input: { sub: string; sessionId: string },
): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const now = deps.clock.now();
  const row = {
    tokenHash: hashSignInAlertToken(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SIGN_IN_ALERT_LINK_TTL_MS),
  };
  await deps.db
    .insert(signInAlertTokens)
    .values({ ...row, sub: input.sub, sessionId: input.sessionId })
    .onConflictDoUpdate({ target: signInAlertTokens.sessionId, set: row });
  return token;
}

/** Whether the link can still end its sign-in (for the page that opening it shows; nothing changes). */
export async function isSignInAlertTokenUsable(db: Database, token: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ sessionId: signInAlertTokens.sessionId })
    .from(signInAlertTokens)
    .where(and(eq(signInAlertTokens.tokenHash, hashSignInAlertToken(token)), gt(signInAlertTokens.expiresAt, now)));
  return !!row;
}

/** The token was spent between the look-up and the ending (a second click): nothing may change. */
class SpentToken extends Error {}

/**
 * The link's button: ends the one session the alert was about (revoked at once, its refresh token revoked at
 * Cognito), and spends the token and records the ending in the member's security record in the same transaction. Unknown, used or expired: "expired", and nothing changes.
 */
export async function endSignInByAlertLink(
  services: Pick<AppServices, "db" | "identity" | "config" | "clock">,
  token: string,
  /** The client IP of the request that used the link, for the security record. */
  clientIp: string,
): Promise<{ kind: "ended" } | { kind: "expired" }> {
  const tokenHash = hashSignInAlertToken(token);
  const [link] = await services.db
    .select({ sub: signInAlertTokens.sub, sessionId: signInAlertTokens.sessionId })
    .from(signInAlertTokens)
    .where(and(eq(signInAlertTokens.tokenHash, tokenHash), gt(signInAlertTokens.expiresAt, services.clock.now())));
  if (!link) return { kind: "expired" };
  try {
    await endSessions(
      services,
      { sub: link.sub, device: { sessionId: link.sessionId } },
      {
        alongside: async (tx) => {
          const spent = await tx
            .delete(signInAlertTokens)
            .where(eq(signInAlertTokens.tokenHash, tokenHash))
            .returning({ sessionId: signInAlertTokens.sessionId });
          if (spent.length === 0) throw new SpentToken();
        },
        // The member said, by the link, that this sign-in was not theirs: as "This wasn't me" on /my/security/.
        record: { kind: "session-reported", clientIp },
      },
    );
  } catch (error) {
    if (error instanceof SpentToken) return { kind: "expired" };
    throw error;
  }
  return { kind: "ended" };
}

/** Deletes links past their seven days (the purge); used ones are deleted by their use. */
export async function purgeExpiredSignInAlertTokens(db: Database, now: Date): Promise<{ deleted: number }> {
  const rows = await db
    .delete(signInAlertTokens)
    .where(lt(signInAlertTokens.expiresAt, now))
    .returning({ tokenHash: signInAlertTokens.tokenHash });
  return { deleted: rows.length };
}
