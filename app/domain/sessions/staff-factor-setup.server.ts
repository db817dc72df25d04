import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { staffFactorSetups } from "~db/schema";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { decryptSecret, encryptSecret } from "./refresh-tokens.server";
import { SERVER_TOKEN_MARGIN_MS, keptServerToken } from "./server-tokens.server";

/**
 * What a staff member's first visit without a second factor keeps between the staff sign-in's password and the
 * authenticator app's first code (the flow: staff-sessions.server.ts): the staff client's refresh token, the
 * server-only client's token that sets the app up, and Cognito's secret, in the database only. The row lives as long
 * as the server token can still make the set-up.
 */
export interface StaffFactorSetup {
  id: string;
  sub: string;
  email: string;
  staffRefreshToken: string;
  serverToken: ServerToken;
  secret: string;
}

export async function keepStaffFactorSetup(
  db: Database,
  input: Omit<StaffFactorSetup, "id"> & { secrets: string[] },
): Promise<{ id: string; expiresAt: Date }> {
  const expiresAt = new Date(input.serverToken.expiresAt.getTime() - SERVER_TOKEN_MARGIN_MS);
  const [row] = await db
    .insert(staffFactorSetups)
    .values({
      sub: input.sub,
      email: input.email,
      staffRefreshTokenEncrypted: encryptSecret(input.staffRefreshToken, input.secrets),
      serverAccessTokenEncrypted: encryptSecret(input.serverToken.accessToken, input.secrets),
      secretEncrypted: encryptSecret(input.secret, input.secrets),
      expiresAt,
    })
    .returning({ id: staffFactorSetups.id });
  if (!row) throw new Error("The staff member's set-up was not stored");
  return { id: row.id, expiresAt };
}

/**
 * The set-up the browser's cookie names, while its server token can still make it; null once it ran out or ended.
 * Read against the real time, as the server token's expiry is Cognito's (serverTokenOf).
 */
export async function staffFactorSetupOf(
  db: Database,
  input: { id: string; secrets: string[] },
): Promise<StaffFactorSetup | null> {
  const [row] = await db
    .select()
    .from(staffFactorSetups)
    .where(and(eq(staffFactorSetups.id, input.id), gt(staffFactorSetups.expiresAt, new Date())));
  if (!row) return null;
  const staffRefreshToken = decryptSecret(row.staffRefreshTokenEncrypted, input.secrets);
  const accessToken = decryptSecret(row.serverAccessTokenEncrypted, input.secrets);
  const secret = decryptSecret(row.secretEncrypted, input.secrets);
  if (!staffRefreshToken || !accessToken || !secret) return null;
  const serverToken = keptServerToken({ accessToken, sub: row.sub, expiresAt: row.expiresAt });
  return { id: row.id, sub: row.sub, email: row.email, staffRefreshToken, serverToken, secret };
}

/**
 * Ends a set-up, made (its staff refresh token goes on in the staff session) or refused; false when another request
 * ended it first, so that one set-up opens one staff session at most.
 */
export async function endStaffFactorSetup(db: Database, input: { id: string }): Promise<boolean> {
  const ended = await db
    .delete(staffFactorSetups)
    .where(eq(staffFactorSetups.id, input.id))
    .returning({ id: staffFactorSetups.id });
  return ended.length > 0;
}

/** A set-up given up ("start again", "cancel"): its row goes and its staff sign-in is revoked. */
export async function abandonStaffFactorSetup(
  services: Pick<AppServices, "db" | "identity" | "config">,
  input: { id: string },
): Promise<void> {
  const [row] = await services.db
    .delete(staffFactorSetups)
    .where(eq(staffFactorSetups.id, input.id))
    .returning({ staffRefreshTokenEncrypted: staffFactorSetups.staffRefreshTokenEncrypted });
  const refreshToken = row && decryptSecret(row.staffRefreshTokenEncrypted, services.config.sessionSecrets);
  if (refreshToken) await revokeUnfinishedSetupToken(services, refreshToken);
}

async function revokeUnfinishedSetupToken(
  services: { identity: Pick<AppServices["identity"], "staffRevokeRefreshToken"> },
  refreshToken: string,
): Promise<void> {
  await services.identity.staffRevokeRefreshToken(refreshToken).catch((error: unknown) => {
    // Only our database ever held it, and the staff client's refresh tokens die within 8 hours.
    logger.warn({ err: error }, "could not revoke an unfinished staff set-up's refresh token at Cognito");
  });
}

/**
 * The purge's sweep: set-ups left unfinished past their time, their staff refresh tokens revoked (a sign-in that
 * never had a second factor must not outlive the page it was for). A token Cognito does not confirm is dropped with
 * its row.
 */
export async function sweepStaffFactorSetups(
  services: {
    db: Database;
    identity: Pick<AppServices["identity"], "staffRevokeRefreshToken">;
    config: { sessionSecrets: string[] };
  },
  now: Date,
): Promise<number> {
  const left = await services.db
    .delete(staffFactorSetups)
    .where(lte(staffFactorSetups.expiresAt, now))
    .returning({ staffRefreshTokenEncrypted: staffFactorSetups.staffRefreshTokenEncrypted });
  for (const row of left) {
    const refreshToken = decryptSecret(row.staffRefreshTokenEncrypted, services.config.sessionSecrets);
    if (refreshToken) await revokeUnfinishedSetupToken(services, refreshToken);
  }
  return left.length;
}
