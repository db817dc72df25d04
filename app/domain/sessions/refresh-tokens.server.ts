import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { and, asc, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { memberSessions } from "~db/schema";
import { DomainError, type DomainErrorCode } from "../domain-error.server";
import type { Database } from "~db/client.server";
import type { Config } from "~/config.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";

/**
 * Cognito refresh tokens are stored encrypted (AES-256-GCM) under a key derived from the session secrets, so a
 * database dump alone cannot sign anyone in. The first secret encrypts; every secret is tried to decrypt, so
 * secrets rotate without signing members out. The sign-up flow and the authenticator set-up are sealed the same way.
 */
const FORMAT_VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "member-account", "refresh-token-encryption", 32));
}

export function encryptSecret(plaintext: string, secrets: string[]): string {
  const [current] = secrets;
  if (!current) throw new Error("No session secret configured");
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(current), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${FORMAT_VERSION}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

/** The plaintext, or null when no configured secret opens it (tampered, or encrypted under a retired secret). */
export function decryptSecret(stored: string, secrets: string[]): string | null {
  const [version, ivText, sealedText] = stored.split(".");
  if (version !== FORMAT_VERSION || !ivText || !sealedText) return null;
  const iv = Buffer.from(ivText, "base64url");
  const sealed = Buffer.from(sealedText, "base64url");
  if (sealed.length < TAG_BYTES) return null;
  for (const secret of secrets) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", deriveKey(secret), iv);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      // Not this secret; try the next.
    }
  }
  return null;
}

/**
 * A short-lived value sealed as above with what it is for and when it stops opening inside, so that neither the
 * browser nor anyone copying it can read or change it, nothing else sealed under the same secrets passes for it, and
 * an old one opens to nothing.
 */
export function sealForPurpose(
  value: object,
  input: { purpose: string; expiresAt: number; secrets: string[] },
): string {
  return encryptSecret(JSON.stringify({ purpose: input.purpose, expiresAt: input.expiresAt, ...value }), input.secrets);
}

/** The fields of a value sealForPurpose sealed for `purpose`, or null when it is not one, is tampered or has expired. */
export function openForPurpose(
  sealed: string,
  input: { purpose: string; now: number; secrets: string[] },
): Record<string, unknown> | null {
  const opened = decryptSecret(sealed, input.secrets);
  if (!opened) return null;
  let value: unknown;
  try {
    value = JSON.parse(opened);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const fields = value as Record<string, unknown>;
  if (fields.purpose !== input.purpose || typeof fields.expiresAt !== "number" || fields.expiresAt <= input.now) {
    return null;
  }
  return fields;
}

export function openRefreshToken(session: { refreshTokenEncrypted: string }, secrets: string[]): string | null {
  return decryptSecret(session.refreshTokenEncrypted, secrets);
}

/** How often, and after what pauses, one refresh token's revocation is tried before it is left to the purge job. */
export const REVOCATION_RETRY_DELAYS_MS = [200, 1_000] as const;

/**
 * Failures that say nothing about the token (Cognito down, slow, throttling): worth another try. Any other refusal
 * means Cognito will not take the token any more (already revoked, expired, user deleted), which is the goal.
 */
const TRANSIENT_REVOCATION_FAILURES: ReadonlySet<DomainErrorCode> = new Set(["unavailable", "throttled"]);

/** Narrower than the app's services: the purge command revokes with no more than these. */
export interface RevocationServices {
  db: Database;
  identity: Pick<IdentityProvider, "revokeRefreshToken">;
  config: Pick<Config, "sessionSecrets">;
  /** The pauses between tries (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

/**
 * Revokes one refresh token by `revoke` (the member client's or the staff client's), retrying transient failures;
 * true once Cognito will not take the token any more.
 */
export async function revokeWithRetries(
  revoke: (refreshToken: string) => Promise<void>,
  refreshToken: string,
  delays: readonly number[] = REVOCATION_RETRY_DELAYS_MS,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await revoke(refreshToken);
      return true;
    } catch (error) {
      const transient = !(error instanceof DomainError) || TRANSIENT_REVOCATION_FAILURES.has(error.code);
      if (!transient) return true;
      if (attempt >= delays.length) {
        logger.warn({ err: error }, "could not revoke a refresh token at Cognito; the purge job will retry");
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

/**
 * Revokes ended sessions' refresh tokens at Cognito, with a few retries. The session rows are already ended, which
 * is what signs those browsers out; a revocation Cognito could not confirm stays owed on its row
 * (refresh_token_revoked_at null) and the purge job tries it again (revokeOwedRefreshTokens). Only the session
 * domain calls it: everything else ends sessions with endSessions, which revokes.
 */
export async function revokeRefreshTokens(
  services: RevocationServices,
  refreshTokensEncrypted: (string | null)[],
): Promise<void> {
  const confirmed: string[] = [];
  await Promise.all(
    refreshTokensEncrypted.map(async (refreshTokenEncrypted) => {
      if (!refreshTokenEncrypted) return;
      const refreshToken = openRefreshToken({ refreshTokenEncrypted }, services.config.sessionSecrets);
      // A token no listed secret opens stays owed: the secrets given may be the wrong ones (a misconfigured job).
      const revoke = (token: string) => services.identity.revokeRefreshToken(token);
      if (refreshToken && (await revokeWithRetries(revoke, refreshToken, services.retryDelaysMs))) {
        confirmed.push(refreshTokenEncrypted);
      }
    }),
  );
  await recordRevocationsConfirmed(services.db, confirmed);
}

/** Marks ended sessions' refresh tokens as revoked at Cognito, so the purge job owes them nothing. */
export async function recordRevocationsConfirmed(db: Database, refreshTokensEncrypted: string[]): Promise<void> {
  if (refreshTokensEncrypted.length === 0) return;
  await db
    .update(memberSessions)
    .set({ refreshTokenRevokedAt: new Date() })
    .where(
      and(inArray(memberSessions.refreshTokenEncrypted, refreshTokensEncrypted), isNotNull(memberSessions.revokedAt)),
    );
}

/** How many owed revocations one purge run tries, so a long Cognito outage does not make one run endless. */
export const OWED_REVOCATIONS_PER_RUN = 500;

/** The purge job's retry of revocations Cognito did not confirm when their sessions ended. */
export async function revokeOwedRefreshTokens(
  services: RevocationServices,
): Promise<{ confirmed: number; owed: number }> {
  const rows = await services.db
    .select({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted })
    .from(memberSessions)
    .where(and(isNotNull(memberSessions.revokedAt), isNull(memberSessions.refreshTokenRevokedAt)))
    .orderBy(asc(memberSessions.revokedAt))
    .limit(OWED_REVOCATIONS_PER_RUN);
  await revokeRefreshTokens(
    services,
    rows.map((row) => row.refreshTokenEncrypted),
  );
  const [left] = await services.db
    .select({ owed: sql<number>`count(*)::int` })
    .from(memberSessions)
    .where(and(isNotNull(memberSessions.revokedAt), isNull(memberSessions.refreshTokenRevokedAt)));
  return { confirmed: rows.length - (left?.owed ?? 0), owed: left?.owed ?? 0 };
}
