import { and, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "~db/client.server";
import { staffSessions } from "~db/schema";
import { verifyAccessToken } from "~/integrations/cognito/access-token.server";
import type { Locale } from "~/i18n/locales";
import type { IdentityTokens } from "~/integrations/cognito/member-flows.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { countPasskeys } from "../account/passkeys.server";
import { keepSignInToOurRecord } from "../security/factor-reconcile.server";
import { guardSecondStep } from "../security/second-step-guard.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "../security/two-step-verification.server";
import { openSecondStepChallenge } from "../security/unfinished-second-steps.server";
import { type DomainErrorCode, toDomainError } from "../domain-error.server";
import { decryptSecret, encryptSecret } from "./refresh-tokens.server";
import { type StaffFactorSetup, endStaffFactorSetup, keepStaffFactorSetup } from "./staff-factor-setup.server";
import {
  type StaffRevocationServices,
  type StaffSessionsToEnd,
  endStaffSessionRows,
  revokeStaffRefreshTokens,
} from "./staff-session-ending.server";

/**
 * The staff area's own sessions (docs/security.md, "Threat model: the shared parent-domain cookie"): staff power never
 * rides on the members' page session, whose cookie every sibling host receives. A staff session is opened with the
 * password and the authenticator app's code (or, for staff whose second factor is a passkey, the password and then the
 * passkey: staff-passkey-sign-in.server.ts) through the staff app client, lives in a host-only cookie, and ends after
 * STAFF_SESSION_MAX_MS or STAFF_SESSION_IDLE_MS without a staff page view, by the app's clock. A page view verifies the
 * staff access token locally and only refreshes it (5-minute tokens) with the staff refresh token; a refused refresh
 * ends the session.
 *
 * Recovery codes do not open a staff session: they stand in for a lost authenticator on the member's own account,
 * and staff who lost theirs set it up again on their own security page (with a recovery code if need be) first.
 */
export const STAFF_SESSION_MAX_MS = 8 * 60 * 60 * 1000;
export const STAFF_SESSION_IDLE_MS = 30 * 60 * 1000;

type StaffSessionServices = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/** The staff member a staff session belongs to, as the staff pages see them. */
export interface SignedInStaff {
  sub: string;
  email: string;
  groups: string[];
  sessionId: string;
  accessToken: string;
  /** When the password and code were last entered on this staff session (high-impact actions need it recent). */
  passwordVerifiedAt: Date;
}

export type StaffSessionResolution =
  | { kind: "staff"; staff: SignedInStaff; refreshedAccessToken?: string }
  /** Unknown, ended, too old, idle too long, or its token refused: the cookie goes. */
  | { kind: "ended" }
  /** Cognito could not answer the refresh: no staff member for this request, the session kept for the next. */
  | { kind: "unverified" };

/** What the staff sign-in's password step led to. */
export type StaffSignInStart =
  /** Cognito wants the authenticator app's code, within this challenge. */
  | { kind: "codeRequired"; email: string; username: string; session: string }
  /** Right password, but not a member of the staff group: no staff session. */
  | { kind: "notStaff" }
  /** Staff with a passkey and no authenticator app: the passkey is their second factor (staff-passkey-sign-in). */
  | { kind: "passkeyRequired"; email: string; sub: string }
  /**
   * Staff with no second factor at all: the authenticator app's set-up comes next, on the staff sign-in itself, and
   * its first code opens the staff session (completeStaffFactorSetup).
   */
  | { kind: "factorSetup"; setupId: string; expiresAt: Date }
  /** An invited staff member who never chose a password: they do that at the members' sign-in first. */
  | { kind: "passwordNotChosen" };

const TRANSIENT_FAILURES: ReadonlySet<DomainErrorCode> = new Set(["unavailable", "throttled", "signInThrottled"]);

function staffClientId(services: Pick<AppServices, "config">): string {
  return services.config.cognito.staffClientId ?? "";
}

export async function staffClaims(services: Pick<AppServices, "config">, accessToken: string) {
  const check = await verifyAccessToken(accessToken, services.config.cognito, staffClientId(services));
  if (!check.valid) throw new Error("Cognito's staff client answered an access token that does not verify");
  return check.claims;
}

/**
 * The password step of the staff sign-in, through the staff app client. Cognito signs in a member without an
 * authenticator app straight away: that sign-in opens no staff session, because a staff session needs a second factor.
 * Staff with none (no app, no passkey) set the app up next: the same password signs in through the server-only
 * client too, whose token asks Cognito for the app's secret, and both sign-ins wait in the database for the app's
 * first code (beginStaffFactorSetup). Anyone else's sign-in is revoked at once.
 * Where Cognito's second factor and our record disagree (an authenticator set up or switched off around our pages),
 * it is repaired first, as at the members' sign-in (keepSignInToOurRecord): our record says whether a code is asked.
 * A code challenge waits for its code as the members' does (unfinished-second-steps: reported if left).
 */
export async function beginStaffSignIn(
  services: StaffSessionServices,
  input: { email: string; password: string; userAgent: string | null; clientIp: string; locale: Locale },
): Promise<StaffSignInStart> {
  const answer = await keepSignInToOurRecord(services, {
    answer: await services.identity.staffBeginSignIn(input),
    email: input.email,
    locale: input.locale,
    revoke: (refreshToken) => services.identity.staffRevokeRefreshToken(refreshToken),
    signInAgain: () => services.identity.staffBeginSignIn(input),
  });
  if (answer.kind === "softwareTokenRequired") {
    const { username, session } = answer;
    await openSecondStepChallenge(services.db, {
      ...input,
      username,
      session,
      deviceKey: null,
      now: services.clock.now(),
    });
    return { kind: "codeRequired", email: input.email, username, session };
  }
  // An invited member who never chose a password has no second factor either.
  if (answer.kind === "newPasswordRequired") return { kind: "passwordNotChosen" };
  const claims = await staffClaims(services, answer.tokens.accessToken);
  const { refreshToken } = answer.tokens;
  const isStaff = claims.groups.includes(services.config.adminGroup);
  const hasPasskey = isStaff && (await countPasskeys(services.db, claims.sub)) > 0;
  if (!isStaff || hasPasskey || !refreshToken) {
    if (refreshToken) await revokeQuietly(services, refreshToken);
    if (!isStaff || !refreshToken) return { kind: "notStaff" };
    return { kind: "passkeyRequired", email: input.email, sub: claims.sub };
  }
  try {
    return await beginStaffFactorSetup(services, { ...input, sub: claims.sub, staffRefreshToken: refreshToken });
  } catch (error) {
    await revokeQuietly(services, refreshToken);
    throw error;
  }
}

/**
 * The set-up's start: the server-only client's token for the same password, Cognito's new authenticator secret for
 * it, and the staff client's refresh token, kept together (staff-factor-setup.server.ts).
 */
async function beginStaffFactorSetup(
  services: StaffSessionServices,
  input: { email: string; password: string; sub: string; staffRefreshToken: string },
): Promise<StaffSignInStart> {
  const server = await services.identity.serverSignIn(input);
  // Cognito just let the staff client in with the password alone: a challenge here is a change in between.
  if (server.kind !== "serverToken") throw new Error(`The server-only client's sign-in answered ${server.kind}`);
  const secret = await startAuthenticatorSetup(services, { token: server.token });
  const kept = await keepStaffFactorSetup(services.db, {
    sub: input.sub,
    email: input.email,
    staffRefreshToken: input.staffRefreshToken,
    serverToken: server.token,
    secret,
    secrets: services.config.sessionSecrets,
  });
  return { kind: "factorSetup", setupId: kept.id, expiresAt: kept.expiresAt };
}

/**
 * A first visit's set-up made: the app's first code turns 2-step verification on (turnOnTwoStep: Cognito checks the
 * code, our record, the recovery codes, the notice mail), and the staff session opens with the password step's staff
 * sign-in, refreshed first so that a sign-in ended meanwhile (a password change, a disabled account) opens nothing.
 * The password and the new app's code: the two factors of every staff session. Answers the recovery codes, once.
 */
export async function completeStaffFactorSetup(
  services: StaffSessionServices,
  input: {
    /** The set-up the browser's cookie names (staffFactorSetupOf). */
    setup: StaffFactorSetup;
    code: string;
    clientIp: string;
    locale: Locale;
    previousSessionId?: string | undefined;
  },
): Promise<
  | { kind: "opened"; sessionId: string; accessToken: string; recoveryCodes: string[] }
  | { kind: "notStaff" }
  | { kind: "expired" }
> {
  const { setup } = input;
  let refreshed: IdentityTokens;
  try {
    refreshed = await services.identity.staffRefresh(setup.staffRefreshToken);
  } catch (error) {
    const refusal = toDomainError(error);
    if (!refusal || TRANSIENT_FAILURES.has(refusal.code)) throw error;
    await endStaffFactorSetup(services.db, { id: setup.id });
    return { kind: "expired" };
  }
  const recoveryCodes = await turnOnTwoStep(services, {
    sub: setup.sub,
    email: setup.email,
    locale: input.locale,
    clientIp: input.clientIp,
    sessionId: null,
    token: setup.serverToken,
    code: input.code,
  });
  if (!(await endStaffFactorSetup(services.db, { id: setup.id }))) return { kind: "expired" };
  const opened = await openStaffSession(services, {
    email: setup.email,
    tokens: { ...refreshed, refreshToken: setup.staffRefreshToken },
    previousSessionId: input.previousSessionId,
  });
  return opened.kind === "opened" ? { ...opened, recoveryCodes } : opened;
}

/**
 * The code step: Cognito's tokens for the staff client, and a new staff session for them when their member is in
 * the staff group. The code counts as a second step of the account, with the members' (second-step-guard: the same
 * authenticator). The browser's previous staff session, if any, ends (confirming the password again replaces it).
 */
export async function completeStaffSignIn(
  services: StaffSessionServices,
  input: { email: string; username: string; session: string; code: string; previousSessionId?: string | undefined },
): Promise<{ kind: "opened"; sessionId: string; accessToken: string } | { kind: "notStaff" }> {
  const tokens = await guardSecondStep(services, input, () =>
    services.identity.staffAnswerSoftwareTokenChallenge(input),
  );
  return openStaffSession(services, { email: input.email, tokens, previousSessionId: input.previousSessionId });
}

/** A staff session for the staff client's tokens of a second factor just answered, when they are a staff member's. */
export async function openStaffSession(
  services: StaffSessionServices,
  input: { email: string; tokens: IdentityTokens; previousSessionId?: string | undefined },
): Promise<{ kind: "opened"; sessionId: string; accessToken: string } | { kind: "notStaff" }> {
  const { tokens } = input;
  const claims = await staffClaims(services, tokens.accessToken);
  if (!claims.groups.includes(services.config.adminGroup) || !tokens.refreshToken) {
    if (tokens.refreshToken) await revokeQuietly(services, tokens.refreshToken);
    return { kind: "notStaff" };
  }
  if (input.previousSessionId) await endStaffSessions(services, { sessionId: input.previousSessionId });
  const now = services.clock.now();
  const [row] = await services.db
    .insert(staffSessions)
    .values({
      sub: claims.sub,
      email: input.email,
      refreshTokenEncrypted: encryptSecret(tokens.refreshToken, services.config.sessionSecrets),
      createdAt: now,
      lastSeenAt: now,
      passwordVerifiedAt: now,
    })
    .returning({ id: staffSessions.id });
  if (!row) throw new Error("The staff session was not stored");
  return { kind: "opened", sessionId: row.id, accessToken: tokens.accessToken };
}

/** Whether a staff session has outlived its 8 hours or been left idle for 30 minutes. */
export function staffSessionExpired(session: { createdAt: Date; lastSeenAt: Date }, now: Date): boolean {
  const time = now.getTime();
  return (
    time - session.createdAt.getTime() >= STAFF_SESSION_MAX_MS ||
    time - session.lastSeenAt.getTime() >= STAFF_SESSION_IDLE_MS
  );
}

/**
 * Who a staff session's cookie belongs to, and the page view noted as its last use. No Cognito call but the refresh
 * of an expired access token. Database failures are thrown, as the member session's check throws them.
 */
export async function resolveStaffSession(
  services: StaffSessionServices,
  cookie: { sessionId: string; accessToken: string },
): Promise<StaffSessionResolution> {
  const { db, config, clock } = services;
  const [[session], check] = await Promise.all([
    db
      .select()
      .from(staffSessions)
      .where(and(eq(staffSessions.id, cookie.sessionId), isNull(staffSessions.endedAt))),
    verifyAccessToken(cookie.accessToken, config.cognito, staffClientId(services)),
  ]);
  if (!session) return { kind: "ended" };
  const now = clock.now();
  if (staffSessionExpired(session, now)) {
    await endStaffSessions(services, { sessionId: session.id });
    return { kind: "ended" };
  }
  let accessToken = cookie.accessToken;
  let groups: string[];
  let refreshed = false;
  if (check.valid) {
    if (check.claims.sub !== session.sub) return { kind: "ended" };
    groups = check.claims.groups;
  } else if ("unverifiable" in check) {
    return { kind: "unverified" };
  } else if (!check.expired) {
    return { kind: "ended" };
  } else {
    const refreshToken =
      session.refreshTokenEncrypted && decryptSecret(session.refreshTokenEncrypted, config.sessionSecrets);
    if (!refreshToken) return { kind: "ended" };
    try {
      const tokens = await services.identity.staffRefresh(refreshToken);
      const claims = await staffClaims(services, tokens.accessToken);
      if (claims.sub !== session.sub) return { kind: "ended" };
      accessToken = tokens.accessToken;
      groups = claims.groups;
      refreshed = true;
    } catch (error) {
      const refusal = toDomainError(error);
      if (!refusal) throw error;
      if (TRANSIENT_FAILURES.has(refusal.code)) {
        logger.warn({ err: error, code: refusal.code }, "could not refresh a staff session: Cognito unavailable");
        return { kind: "unverified" };
      }
      // Cognito refused the staff refresh token (revoked, expired, user disabled): the staff session is over.
      await endStaffSessions(services, { sessionId: session.id }, { refreshRefused: true });
      return { kind: "ended" };
    }
  }
  await db.update(staffSessions).set({ lastSeenAt: now }).where(eq(staffSessions.id, session.id));
  const staff: SignedInStaff = {
    sub: session.sub,
    email: session.email,
    groups,
    sessionId: session.id,
    accessToken,
    passwordVerifiedAt: session.passwordVerifiedAt,
  };
  return refreshed ? { kind: "staff", staff, refreshedAccessToken: accessToken } : { kind: "staff", staff };
}

export async function revokeQuietly(services: Pick<AppServices, "identity">, refreshToken: string): Promise<void> {
  try {
    await services.identity.staffRevokeRefreshToken(refreshToken);
  } catch (error) {
    // A sign-in that opened no session: nothing keeps the token to retry it, and it dies within 8 hours.
    logger.warn({ err: error }, "could not revoke a staff refresh token at Cognito");
  }
}

/** Ends one staff session, or every staff session of a member, and revokes their staff refresh tokens. */
export async function endStaffSessions(
  services: StaffSessionServices,
  which: StaffSessionsToEnd,
  options: { refreshRefused?: boolean } = {},
): Promise<void> {
  const ended = await endStaffSessionRows(services.db, which, services.clock.now(), options);
  await revokeStaffRefreshTokens(services, ended);
}

/**
 * The purge job's retry of staff revocations Cognito did not confirm when their sessions ended. Only tokens within
 * their 8 hours are tried: an older one Cognito refuses anyway (the staff client's refresh tokens last at most a
 * staff session's 8 hours, pinned by the deployment contract), and the purge clears it (purgeStaffSessions).
 */
export async function revokeOwedStaffRefreshTokens(
  services: StaffRevocationServices,
  now: Date,
): Promise<{ confirmed: number; owed: number }> {
  const owed = and(
    isNotNull(staffSessions.endedAt),
    isNotNull(staffSessions.refreshTokenEncrypted),
    gt(staffSessions.createdAt, new Date(now.getTime() - STAFF_SESSION_MAX_MS)),
  );
  const rows = await services.db
    .select({ id: staffSessions.id, refreshTokenEncrypted: staffSessions.refreshTokenEncrypted })
    .from(staffSessions)
    .where(owed);
  await revokeStaffRefreshTokens(services, rows);
  const [left] = await services.db
    .select({ owed: sql<number>`count(*)::int` })
    .from(staffSessions)
    .where(owed);
  return { confirmed: rows.length - (left?.owed ?? 0), owed: left?.owed ?? 0 };
}

/**
 * Moves a staff session's times back, as if that many minutes had passed since it opened, was last used and last
 * confirmed: the dev tools' session clock (development and preview only), for the tests of the idle end and of the
 * confirmation before high-impact actions, without a clock shared by every other test of the server.
 */
export async function moveStaffSessionTimeBack(
  db: Database,
  input: { sessionId: string; minutes: number },
): Promise<void> {
  const back = (column: AnyPgColumn) => sql`${column} - make_interval(mins => ${input.minutes})`;
  await db
    .update(staffSessions)
    .set({
      createdAt: back(staffSessions.createdAt),
      lastSeenAt: back(staffSessions.lastSeenAt),
      passwordVerifiedAt: back(staffSessions.passwordVerifiedAt),
    })
    .where(and(eq(staffSessions.id, input.sessionId), isNull(staffSessions.endedAt)));
}
