import { decodeJwt } from "jose";
import { DomainError, type DomainErrorCode } from "../domain-error.server";
import type { IdentityTokens, PasswordSignIn } from "~/integrations/cognito/member-flows.server";
import type { AppServices } from "~/services.server";
import { type StartSessionResult, startSession } from "../sessions/device-admission.server";
import { describeDevice } from "../sessions/device-description.server";
import { recordRefusedSignIn } from "../security/security-record.server";
import { logger } from "~/integrations/logger.server";
import type { Locale } from "~/i18n/locales";
import { ringMailOutbox } from "../mail/mail-outbox.server";
import { migrateLegacyAccount } from "./legacy-accounts.server";
import { refuseWeakPassword } from "./password-strength.server";
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
 * invited member must choose a password first. Cognito's failures come out as DomainErrors; wrong password, unknown
 * and unconfirmed users read the same to the member.
 */
export async function signIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { password: string },
): Promise<SignInResult | NewPasswordRequired> {
  const answer = await authenticate(deps, input);
  if (answer.kind === "newPasswordRequired") {
    return { kind: "newPasswordRequired", email: input.email, username: answer.username, session: answer.session };
  }
  return startSignedInSession(deps, answer.tokens, input);
}

/**
 * The invited member's first sign-in, second step: their own password answers Cognito's challenge (the policy may
 * refuse it: "invalidPassword"; a challenge older than Cognito's session: "challengeExpired"), and then the browser's
 * session starts exactly as after any sign-in. A password too easy to guess, or made of the address, is refused
 * before the challenge is answered, so the member can try another within the same challenge.
 */
export async function completeFirstSignIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { username: string; session: string; newPassword: string },
): Promise<SignInResult> {
  const { username, session, newPassword } = input;
  await refuseWeakPassword(newPassword, { email: input.email });
  const tokens = await deps.identity.answerNewPasswordChallenge({ username, session, newPassword });
  return startSignedInSession(deps, tokens, input);
}

/**
 * The browser's session for the tokens of a sign-in (by password, or by passkey: passkey-sign-in.server.ts): active,
 * or held at the device limit.
 */
export async function startSignedInSession(
  deps: SignInDependencies,
  tokens: IdentityTokens,
  input: BrowserSignIn,
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
