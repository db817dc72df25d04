import { decodeJwt } from "jose";
import { DomainError, type DomainErrorCode } from "../domain-error.server";
import type { IdentityTokens, PasswordSignIn, ServerToken } from "~/integrations/cognito/member-flows.server";
import { keepServerToken } from "../sessions/server-tokens.server";
import { keepSignInToOurRecord, reconcilePasskeysLater } from "../security/factor-reconcile.server";
import type { AppServices } from "~/services.server";
import { type StartSessionResult, startSession } from "../sessions/device-admission.server";
import { describeDevice } from "../sessions/device-description.server";
import { recordRefusedSignIn, recordSecurityEvent } from "../security/security-record.server";
import { claimRecoveryCode, countRecoveryCodesLeft, releaseRecoveryCode } from "../security/recovery-codes.server";
import { guardSecondStep } from "../security/second-step-guard.server";
import { endBrowserSecondSteps, openSecondStepChallenge } from "../security/unfinished-second-steps.server";
import { clearTotpOffMark, markTotpOff, twoStepMemberByUsername } from "../security/two-step-verification.server";
import type { Database } from "~db/client.server";
import { logger } from "~/integrations/logger.server";
import type { Locale } from "~/i18n/locales";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { migrateLegacyAccount } from "./legacy-accounts.server";
import { refuseWeakPassword } from "./password-strength.server";
import { callCognitoForPendingChange, notePendingCognitoChange } from "./pending-cognito-changes.server";
import { recordFirstPassword, settleUnconfirmedPasswords } from "./unconfirmed-passwords.server";
import { queueSignInAlert } from "./sign-in-alerts.server";

export type SignInDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export type SignInResult = StartSessionResult & { accessToken: string };

/**
 * A member staff invited signed in with the temporary password: Cognito wants their own password first
 * (`completeFirstSignIn`). `username` and `session` are Cognito's challenge, to be kept for that step.
 */
export interface NewPasswordRequired {
  kind: "newPasswordRequired";
  email: string;
  username: string;
  session: string;
}

/**
 * The member uses 2-step verification: the password was right, and Cognito wants the authenticator app's code
 * (`completeCodeSignIn`) or, failing the app, a recovery code (`signInWithRecoveryCode`). `username` and `session`
 * are Cognito's challenge, to be kept for that step.
 */
export interface CodeRequired {
  kind: "codeRequired";
  email: string;
  username: string;
  session: string;
}

export interface BrowserSignIn {
  email: string;
  deviceKey: string;
  userAgent: string | null;
  /** The request's client IP, for the security record and the alert mail a sign-in from a new browser sends. */
  clientIp: string;
  /** The page's language, for that alert mail. */
  locale: Locale;
}

/** When Cognito issued an access token (`iat`, whole seconds; decoded only, as originJtiOf decodes). */
export function issuedAtOf(accessToken: string): Date {
  return new Date(Number(decodeJwt(accessToken).iat ?? 0) * 1000);
}

/** The sign-in an access token straight from Cognito names (decoded only: it comes over TLS from Cognito). */
export function originJtiOf(accessToken: string): string | null {
  const originJti = decodeJwt(accessToken).origin_jti;
  return typeof originJti === "string" ? originJti : null;
}

/**
 * Cognito's refusals after which a pre-July-2021 account may still be waiting in the legacy table: an address
 * Cognito does not know, and one whose only user is a sign-up nobody confirmed (with the password its starter
 * chose, so Cognito says wrong password or unconfirmed). Every one of them costs the same bcrypt compare.
 */
const LEGACY_CANDIDATE_CODES: ReadonlySet<DomainErrorCode> = new Set([
  "userNotFound",
  "invalidCredentials",
  "userNotConfirmed",
]);

/**
 * Cognito's answer, after moving a pre-July-2021 account over first when Cognito does not have it yet. A wrong
 * password that no legacy account explains is counted in that member's security record.
 */
async function authenticate(
  deps: SignInDependencies,
  input: { email: string; password: string; clientIp: string },
): Promise<PasswordSignIn> {
  try {
    return await deps.identity.beginSignIn(input);
  } catch (error) {
    if (!(error instanceof DomainError && LEGACY_CANDIDATE_CODES.has(error.code))) throw error;
    if (!(await migrateLegacyAccount(deps, input))) {
      if (error.code === "invalidCredentials") await countRefusedSignIn(deps, input);
      throw error;
    }
    // The migrated account's username is the lower-cased address.
    return deps.identity.beginSignIn({ ...input, email: input.email.trim().toLowerCase() });
  }
}

/** The refusal is already the member's answer: a record that cannot be written is logged, not shown. */
async function countRefusedSignIn(deps: SignInDependencies, input: { email: string; clientIp: string }) {
  await recordRefusedSignIn(deps.db, { email: input.email, ipAddress: input.clientIp, now: deps.clock.now() }).catch(
    (error: unknown) => logger.warn({ err: error }, "could not count a refused sign-in in the security record"),
  );
}

/**
 * Authenticates with Cognito and records the browser's session (or holds it at the device limit), or answers that an
 * invited member must choose a password first, or that the code step comes next. Cognito's failures come out as
 * DomainErrors; wrong password, unknown and unconfirmed users read the same to the member. Where Cognito's second
 * factor and our record disagree, our record wins before the member goes on (keepSignInToOurRecord). A sign-in
 * that ends here with tokens also gets the session its server token (the password was just typed), with which the
 * member's passkeys are reconciled after the answer. The accepted password first settles the member's new passwords
 * Cognito could not confirm (settlePasswordsBy).
 */
export async function signIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { password: string },
): Promise<SignInResult | NewPasswordRequired | CodeRequired> {
  const keptToOurRecord = (answer: PasswordSignIn) =>
    keepSignInToOurRecord(deps, {
      answer,
      email: input.email,
      locale: input.locale,
      revoke: (refreshToken) => deps.identity.revokeRefreshToken(refreshToken),
      signInAgain: () => deps.identity.beginSignIn(input),
    });
  let answer = await keptToOurRecord(await authenticate(deps, input));
  // A new password settled now ended every sign-in at Cognito, this one's too: it signs in again.
  if (await settlePasswordsBy(deps, answer, input))
    answer = await keptToOurRecord(await deps.identity.beginSignIn(input));
  if (answer.kind === "newPasswordRequired") {
    return { kind: "newPasswordRequired", email: input.email, username: answer.username, session: answer.session };
  }
  if (answer.kind === "softwareTokenRequired") {
    // The right password: until its second step succeeds in this browser, it is reported as left unfinished.
    const { username, session } = answer;
    const { email, deviceKey, userAgent, clientIp, locale } = input;
    const now = deps.clock.now();
    await openSecondStepChallenge(deps.db, { username, session, email, deviceKey, userAgent, clientIp, locale, now });
    return { kind: "codeRequired", email: input.email, username: answer.username, session: answer.session };
  }
  const claims = decodeJwt(answer.tokens.idToken);
  const email = typeof claims.email === "string" ? claims.email : input.email;
  // Asked beside the session's own writes: a second sign-in, through the server-only client, with the same password.
  const serverToken = deps.identity.serverSignIn({ email, password: input.password }).then(
    (server) => (server.kind === "serverToken" && server.token.sub === claims.sub ? server.token : null),
    (error: unknown) => {
      logger.warn({ err: error }, "no server token at sign-in: credential changes will ask for the password again");
      return null;
    },
  );
  const result = await startSignedInSession(deps, answer.tokens, input);
  await keepSignInServerToken(deps, { ...input, email, sessionId: result.sessionId, token: await serverToken });
  return result;
}

/**
 * Cognito accepted the typed password (tokens, or the code challenge it issues only to the right password): the
 * member's unconfirmed new passwords are settled by it (settleUnconfirmedPasswords). A first sign-in's temporary
 * password settles nothing. Answers whether a change or reset was recorded now.
 */
async function settlePasswordsBy(
  deps: SignInDependencies,
  answer: PasswordSignIn,
  input: { email: string; password: string },
): Promise<boolean> {
  let sub: string | null = null;
  let email = input.email;
  if (answer.kind === "tokens") {
    const claims = decodeJwt(answer.tokens.idToken);
    sub = String(claims.sub);
    if (typeof claims.email === "string") email = claims.email;
  } else if (answer.kind === "softwareTokenRequired") {
    sub = (await twoStepMemberByUsername(deps.db, answer.username))?.sub ?? null;
  }
  if (!sub) return false;
  return settleUnconfirmedPasswords(deps, { sub, email, password: input.password });
}

/** The server token of a password sign-in, kept for its session; the passkeys reconciled with it after the answer. */
async function keepSignInServerToken(
  deps: SignInDependencies,
  input: BrowserSignIn & { sessionId: string; token: ServerToken | null },
): Promise<void> {
  if (!input.token) return;
  try {
    await keepServerToken(deps.db, {
      sessionId: input.sessionId,
      token: input.token,
      secrets: deps.config.sessionSecrets,
    });
  } catch (error) {
    logger.warn({ err: error }, "could not keep the sign-in's server token");
    return;
  }
  reconcilePasskeysLater(deps, { sub: input.token.sub, email: input.email, locale: input.locale, token: input.token });
}

/**
 * The sign-in's code step: the authenticator app's code answers Cognito's challenge (a wrong or reused code:
 * "authenticatorCodeMismatch", the same challenge may be answered again; a challenge too old: "challengeExpired"),
 * within the account's standing for second steps (second-step-guard: paused or locked after refusals in a row), and the
 * browser's session starts as after any sign-in (the device-limit screen comes after this step).
 */
export async function completeCodeSignIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { username: string; session: string; code: string },
): Promise<SignInResult> {
  const tokens = await guardSecondStep(deps, input, () => deps.identity.answerSoftwareTokenChallenge(input));
  return startSignedInSession(deps, tokens, input);
}

/**
 * The sign-in's code step with a recovery code, for a member without their app. Cognito knows no recovery codes, and
 * its challenge can only be answered with the app's code, so the app vouches for the second factor itself and asks
 * Cognito for tokens without it (app/domain/README.md, "security", recovery codes): the code is used up first (one
 * conditional update, so it works once), then the member's authenticator is switched off at Cognito for the length of
 * one password sign-in (AdminSetUserMFAPreference, AdminInitiateAuth with the password typed again) and on again at
 * once. A wrong password or a Cognito failure gives the code back. Each try counts as a second step of the account
 * (second-step-guard), as the app's codes do. The session starts with the use recorded and mailed in its
 * transaction.
 */
export async function signInWithRecoveryCode(
  deps: SignInDependencies,
  input: BrowserSignIn & { username: string; session: string; password: string; recoveryCode: string },
): Promise<SignInResult> {
  const member = await twoStepMemberByUsername(deps.db, input.username);
  if (!member) throw new DomainError("recoveryCodeMismatch");
  const tokens = await guardSecondStep(deps, input, async () => {
    const claimedAt = deps.clock.now();
    const claimed = await claimRecoveryCode(deps.db, { sub: member.sub, code: input.recoveryCode, now: claimedAt });
    if (!claimed) throw new DomainError("recoveryCodeMismatch");
    try {
      return await passwordSignInWithoutApp(deps, { ...input, sub: member.sub });
    } catch (error) {
      await releaseRecoveryCode(deps.db, { sub: member.sub, code: input.recoveryCode, claimedAt });
      throw error;
    }
  });
  return startSignedInSession(deps, tokens, input, async (tx, sessionId, occurredAt) => {
    const recoveryCodesLeft = await countRecoveryCodesLeft(tx, member.sub);
    await recordSecurityEvent(tx, {
      sub: member.sub,
      kind: "recovery-code-used",
      occurredAt,
      sessionId,
      ipAddress: input.clientIp,
    });
    await queueMail(tx, {
      kind: "twoStepChanged",
      recipient: input.email,
      sub: member.sub,
      requestLocale: input.locale,
      now: occurredAt,
      details: {
        change: "recoveryCodeUsed",
        changedAt: occurredAt.toISOString(),
        recoveryCodesLeft: String(recoveryCodesLeft),
      },
    });
    return true;
  });
}

/**
 * A password sign-in with the member's authenticator switched off at Cognito for its length, and on again however it
 * went. Another account's password (the address typed at the password step may name someone else now) proves nothing.
 */
async function passwordSignInWithoutApp(
  deps: SignInDependencies,
  input: { sub: string; email: string; password: string },
): Promise<IdentityTokens> {
  // Marked first: should this process die before TOTP is on again, the purge job switches it on (switchAbandonedTotpOn).
  await markTotpOff(deps.db, { sub: input.sub, now: deps.clock.now() });
  await deps.identity.setSoftwareTokenPreferenceOf({ username: input.sub, enabled: false });
  let answer: PasswordSignIn;
  try {
    answer = await deps.identity.beginSignIn({ email: input.email, password: input.password });
  } finally {
    await deps.identity.setSoftwareTokenPreferenceOf({ username: input.sub, enabled: true }).catch((error: unknown) => {
      logger.error({ err: error }, "2-step verification could not be switched back on after a recovery code's sign-in");
      throw error;
    });
    await clearTotpOffMark(deps.db, input.sub);
  }
  if (answer.kind !== "tokens") throw new DomainError("invalidCredentials");
  if (decodeJwt(answer.tokens.idToken).sub !== input.sub) {
    await deps.identity.revokeRefreshToken(answer.tokens.refreshToken ?? "").catch(() => undefined);
    throw new DomainError("invalidCredentials");
  }
  return answer.tokens;
}

/**
 * The invited member's first sign-in, second step: their own password answers Cognito's challenge (the policy may
 * refuse it: "invalidPassword"; a challenge older than Cognito's session: "challengeExpired"), and then the browser's
 * session starts exactly as after any sign-in. A password too easy to guess, or made of the address, is refused
 * before the challenge is answered, so the member can try another within the same challenge. The password is noted
 * (as a bcrypt verifier) before Cognito is asked: cut off before the session's transaction, it is announced at the
 * member's next password sign-in (unconfirmed-passwords.server.ts).
 */
export async function completeFirstSignIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { username: string; session: string; newPassword: string },
): Promise<SignInResult> {
  const { username, session, newPassword } = input;
  await refuseWeakPassword(newPassword, { email: input.email });
  const pendingId = await notePendingCognitoChange(deps.db, {
    sub: null,
    email: input.email,
    kind: "first-password",
    newPassword,
    now: deps.clock.now(),
  });
  const tokens = await callCognitoForPendingChange(deps.db, pendingId, () =>
    deps.identity.answerNewPasswordChallenge({ username, session, newPassword }),
  );
  return startSignedInSession(deps, tokens, input, async (tx, _sessionId, now) => {
    await recordFirstPassword(tx, { pendingId, sub: String(decodeJwt(tokens.idToken).sub), email: input.email, now });
    return false;
  });
}

/**
 * The browser's session for the tokens of a sign-in (by password, or by passkey: passkey-sign-in.server.ts): active,
 * or held at the device limit.
 */
export async function startSignedInSession(
  deps: SignInDependencies,
  tokens: IdentityTokens,
  input: BrowserSignIn,
  /** More to write in the session's transaction; answers whether it queued mail. */
  also?: (tx: Database, sessionId: string, occurredAt: Date) => Promise<boolean>,
): Promise<SignInResult> {
  // Straight from Cognito over TLS, so decoding is enough here; page views verify the access token properly.
  const claims = decodeJwt(tokens.idToken);
  const sub = String(claims.sub);
  const email = typeof claims.email === "string" ? claims.email : input.email;
  if (!tokens.refreshToken) throw new Error("Cognito returned no refresh token at sign-in");
  const device = describeDevice(input.userAgent);
  let alertQueued = false;
  const session = await startSession(
    deps,
    {
      sub,
      email,
      deviceKey: input.deviceKey,
      device,
      refreshToken: tokens.refreshToken,
      originJti: originJtiOf(tokens.accessToken),
      issuedAt: issuedAtOf(tokens.accessToken),
      overLimit: "hold",
      passwordTyped: true,
      clientIp: input.clientIp,
    },
    async (tx, sessionId, signIn) => {
      // Signed in in this browser: its unfinished second steps were the member's own.
      await endBrowserSecondSteps(tx, { sub, deviceKey: input.deviceKey });
      if (also && (await also(tx, sessionId, deps.clock.now()))) alertQueued = true;
      // No alert for the member's first sign-in ever, nor for a browser they signed in or signed up with before.
      if (!signIn.newBrowser || !signIn.signedInBefore) return;
      await queueSignInAlert(tx, {
        sub,
        email,
        sessionId,
        device,
        clientIp: input.clientIp,
        requestLocale: input.locale,
        now: deps.clock.now(),
      });
      alertQueued = true;
    },
  );
  // Committed: the mail goes out from this process now, after (never before) the member's answer is on its way.
  if (alertQueued) ringMailOutbox();
  return { ...session, accessToken: tokens.accessToken };
}
