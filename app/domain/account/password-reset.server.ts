import { eq, sql } from "drizzle-orm";
import { invitationResends } from "~db/schema";
import { DomainError, type DomainErrorCode, refusedOnCognitoRetry } from "../domain-error.server";
import type { Locale } from "~/i18n/locales";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { refuseWeakPassword } from "./password-strength.server";
import { passwordSignsIn } from "./reauthentication.server";
import { callCognitoForPendingChange, notePendingCognitoChange } from "./pending-cognito-changes.server";
import {
  type PasswordNote,
  passwordLeftUnconfirmed,
  recordPasswordCredentialChange,
} from "./unconfirmed-passwords.server";

export type PasswordResetIdentity = Pick<
  IdentityProvider,
  "forgotPassword" | "confirmForgotPassword" | "resendInvitation" | "getUser" | "poolSummary"
>;

/** What asking for a reset needs: Cognito, and the database and clock that date an invited member's invitation. */
export type PasswordResetRequestDependencies = Pick<AppServices, "db" | "clock"> & { identity: PasswordResetIdentity };

const DAY_MS = 24 * 60 * 60 * 1000;

export type PasswordResetDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/**
 * What Cognito's ForgotPassword may reveal about the account itself: unknown, unconfirmed, disabled
 * (NotAuthorized) or without a verified e-mail (InvalidParameter). Telling any of these apart from "code sent"
 * would let anyone test which addresses have an ID, so they all read as success.
 */
const HIDDEN_ON_REQUEST: ReadonlySet<DomainErrorCode> = new Set([
  "userNotFound",
  "userNotConfirmed",
  "invalidCredentials",
  "invalidInput",
]);

/**
 * On ConfirmForgotPassword the same account states (and an expired code) read as a wrong code: after an
 * enumeration-safe request, an unknown address must fail the confirm step exactly like a known one would.
 */
const READ_AS_CODE_MISMATCH: ReadonlySet<DomainErrorCode> = new Set([
  "codeExpired",
  "userNotFound",
  "userNotConfirmed",
  "invalidCredentials",
]);

/** A new invitation's refusals that mean "nobody to invite any more" (the member chose a password, or is gone). */
const HIDDEN_ON_INVITATION: ReadonlySet<DomainErrorCode> = new Set(["invitationNotPending", "userNotFound"]);

/**
 * Asks Cognito to mail a reset code, in `locale` (the page's language). Resolves the same way whether or not the
 * address has an ID; throttling and Cognito being unavailable still come out as DomainErrors, which say nothing about
 * the account.
 *
 * A member staff invited who never signed in has no password of their own to reset (Cognito refuses ForgotPassword
 * while the user is FORCE_CHANGE_PASSWORD), and their temporary password may have expired: they get the invitation
 * again, with a new temporary password (AdminCreateUser RESEND), but only once the previous one has expired, since
 * the new one replaces it and anyone may ask for any address. The answer is the same as everyone's.
 */
export async function requestPasswordReset(
  deps: PasswordResetRequestDependencies,
  email: string,
  locale: Locale,
): Promise<void> {
  const { identity } = deps;
  try {
    await identity.forgotPassword({ email, locale });
  } catch (error) {
    if (error instanceof DomainError && error.code === "invitationPending") return resendExpiredInvitation(deps, email);
    if (error instanceof DomainError && HIDDEN_ON_REQUEST.has(error.code)) {
      // No address in the log: this line must not become an enumeration oracle of its own.
      logger.info({ identityError: error.code }, "password reset requested for an address that cannot reset");
      return;
    }
    throw error;
  }
}

/**
 * A new invitation once the temporary password the member holds has expired: it was mailed when Cognito created the
 * user, or when this last sent one again (invitation_resends), and lasts the pool's TemporaryPasswordValidityDays.
 */
async function resendExpiredInvitation(deps: PasswordResetRequestDependencies, email: string): Promise<void> {
  const { identity, db, clock } = deps;
  try {
    const user = await identity.getUser(email);
    const [resent] = await db
      .select({ resentAt: invitationResends.resentAt })
      .from(invitationResends)
      .where(eq(invitationResends.sub, user.sub));
    const sentAt = Math.max(user.createdAt.getTime(), resent?.resentAt.getTime() ?? 0);
    const { temporaryPasswordValidityDays } = (await identity.poolSummary()).passwordPolicy;
    const now = clock.now();
    if (now.getTime() < sentAt + temporaryPasswordValidityDays * DAY_MS) {
      logger.info("password reset requested by an invited member whose temporary password is still valid: none sent");
      return;
    }
    await identity.resendInvitation(email);
    await db
      .insert(invitationResends)
      .values({ sub: user.sub, resentAt: now })
      .onConflictDoUpdate({ target: invitationResends.sub, set: { resentAt: sql`excluded.resent_at` } });
    logger.info("password reset requested by an invited member: the invitation was mailed again");
  } catch (error) {
    // The member chose a password or was deleted in between: as for anyone who cannot reset, nothing is told.
    if (error instanceof DomainError && HIDDEN_ON_INVITATION.has(error.code)) return;
    throw error;
  }
}

/** The account's sub, or null when the address has none (the confirm then fails as a wrong code). */
async function subOf(identity: PasswordResetDependencies["identity"], email: string): Promise<string | null> {
  try {
    return (await identity.getUser(email)).sub || null;
  } catch (error) {
    if (error instanceof DomainError && error.code === "userNotFound") return null;
    throw error;
  }
}

/**
 * What is true when ConfirmForgotPassword did not answer clearly. Its answer may be lost after Cognito set the
 * password: a time-out or a dropped connection ("unavailable"), or the SDK's retry of such an attempt refused because
 * the first one used the code. A sign-in with the new password then tells: it signs in, the reset goes on as if Cognito
 * had answered (the other sessions must end); it is refused, the first answer stands; no answer either, the member is
 * told the reset could not be confirmed and how to find out. A refusal on the first attempt is the code's mismatch,
 * checked no further, so the check is no way to try passwords.
 */
async function confirmResetDespiteLostAnswer(
  deps: PasswordResetDependencies,
  error: unknown,
  input: { sub: string | null; email: string; password: string },
): Promise<void> {
  if (!(error instanceof DomainError)) throw error;
  const refused = error.code === "codeMismatch" || READ_AS_CODE_MISMATCH.has(error.code);
  const answer = READ_AS_CODE_MISMATCH.has(error.code) ? new DomainError("codeMismatch", { cause: error }) : error;
  const unclear = refused ? refusedOnCognitoRetry(error) : error.code === "unavailable";
  if (!unclear || !input.sub) throw answer;
  const reset = await passwordSignsIn(deps, { sub: input.sub, email: input.email, password: input.password });
  if (reset === null) throw new DomainError("passwordResetUnconfirmed", { cause: error });
  if (!reset) throw answer;
  logger.warn({ err: error }, "ConfirmForgotPassword's answer was lost, but the new password signs in: it was reset");
}

/**
 * Sets the new password with the mailed code; every way the code or account can be wrong is "codeMismatch". A
 * reset is what a member does whose password may be known to someone else, so, as a password change does, it then
 * ends every session of the member and signs out everywhere at Cognito. The account is looked up first, so that
 * Cognito being down there leaves the password unchanged rather than changed with the sessions left running.
 * A new password too easy to guess (or made of the address) is refused before the code is tried, which tells
 * nothing about the code or the account. The account is mailed that its password was reset (after the response).
 * The new password is noted (as a bcrypt verifier) before Cognito is asked: a reset left unconfirmed, or cut off
 * before our record, is settled by the member's next password sign-in (unconfirmed-passwords.server.ts).
 */
export async function confirmPasswordReset(
  deps: PasswordResetDependencies,
  input: { email: string; code: string; password: string; clientIp: string; locale: Locale },
): Promise<void> {
  await refuseWeakPassword(input.password, { email: input.email });
  const sub = await subOf(deps.identity, input.email);
  const { email, code, password } = input;
  const reset = async () => {
    try {
      await deps.identity.confirmForgotPassword({ email, code, password });
    } catch (error) {
      await confirmResetDespiteLostAnswer(deps, error, { sub, email, password });
    }
  };
  // An address without an account changes nothing at Cognito: nothing to note.
  if (!sub) return reset();
  const note: PasswordNote = { clientIp: input.clientIp, locale: input.locale };
  const pendingId = await notePendingCognitoChange(deps.db, {
    sub,
    email,
    kind: "password-reset",
    data: note,
    newPassword: password,
    now: deps.clock.now(),
  });
  await callCognitoForPendingChange(deps.db, pendingId, reset, passwordLeftUnconfirmed);
  await recordPasswordCredentialChange(deps, {
    pendingId,
    sub,
    email,
    kind: "password-reset",
    keepSessionId: null,
    note,
  });
}
