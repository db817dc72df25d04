import type { Locale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import { DomainError } from "../domain-error.server";
import { twoStepStatusOf } from "../security/two-step-verification.server";
import { renewSessionSignIn } from "../sessions/page-sessions.server";
import { endSessions } from "../sessions/session-ending.server";
import { keepServerToken } from "../sessions/server-tokens.server";
import {
  checkMemberPassword,
  passwordSignsIn,
  recordPasswordTyped,
  verifyMemberFactors,
} from "./reauthentication.server";
import { refuseWeakPassword } from "./password-strength.server";
import { originJtiOf } from "./sign-in.server";
import { callCognitoForPendingChange, notePendingCognitoChange } from "./pending-cognito-changes.server";
import {
  type PasswordNote,
  passwordLeftUnconfirmed,
  recordPasswordCredentialChange,
} from "./unconfirmed-passwords.server";

export type PasswordChangeDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export type PasswordChangeResult =
  | {
      kind: "changed";
      endedSessions: number;
      /** This browser's new access token, for its session cookie; null when it keeps the one it had. */
      accessToken: string | null;
    }
  | {
      /**
       * The password is changed and everyone is signed out, this browser too: its sign-in with the new password met
       * Cognito's code challenge, and the code the change took cannot be used twice. The browser answers the
       * challenge at the sign-in's code step with the app's next code (`username` and `session` are Cognito's).
       */
      kind: "codeStep";
      endedSessions: number;
      username: string;
      session: string;
    };

/**
 * Changes the member's password. The current password, and for a member with 2-step verification the authenticator
 * app's code, are checked at Cognito first by a sign-in through the server-only client (verifyMemberFactors: a wrong
 * password is "currentPasswordMismatch", a missing code "codeRequired", a wrong one "authenticatorCodeMismatch"), so
 * nothing changes unless both are right; ChangePassword then runs with that server token. A new password too easy to
 * guess, or made of the member's address or name (the stored profile's), is refused before Cognito is asked.  Then
 * every other sign-in is signed out: their session rows end, which signs other browsers out on their next request.
 * Cognito keeps refresh tokens through a password change, so a global sign-out revokes every one of them, including
 * sign-ins no session of ours records (a sibling service's before it registers the device): none can mint another
 * access token, and the member API refuses the ones they hold (recordSignOutEverywhere). This browser is signed in
 * again with the new password and keeps its session; a member with 2-step verification is sent to the code step for
 * that ("codeStep"). If the global sign-out fails, the ended sessions' refresh tokens are revoked one by one instead
 * (best effort), and this browser keeps its tokens. The account is mailed that its password changed (after the
 * response). The new password is noted (as a bcrypt verifier) before Cognito is asked: a change left unconfirmed, or
 * cut off before our record, is settled by the member's next password sign-in (unconfirmed-passwords.server.ts).
 */
export async function changePassword(
  deps: PasswordChangeDependencies,
  input: {
    sub: string;
    email: string;
    sessionId: string;
    currentPassword: string;
    newPassword: string;
    /** The authenticator app's code: required when the member uses 2-step verification. */
    code?: string | undefined;
    familyName: string | null;
    givenName: string | null;
    /** The request's client IP, for the security record. */
    clientIp: string;
    /** The page's language: the mail's when the member chose none. */
    locale: Locale;
  },
): Promise<PasswordChangeResult> {
  await refuseWeakPassword(input.newPassword, input);
  if (!input.code && (await twoStepStatusOf(deps.db, input.sub)).enabled) throw new DomainError("codeRequired");
  const token = await verifyMemberFactors(deps, { ...input, password: input.currentPassword });
  const note: PasswordNote = { clientIp: input.clientIp, locale: input.locale };
  const pendingId = await notePendingCognitoChange(deps.db, {
    sub: input.sub,
    email: input.email,
    kind: "password-change",
    data: note,
    newPassword: input.newPassword,
    now: deps.clock.now(),
  });
  await callCognitoForPendingChange(
    deps.db,
    pendingId,
    () => changePasswordAtCognito(deps, token, input),
    passwordLeftUnconfirmed,
  );
  // Records nothing more (and signs no one out) when a sign-in with the new password elsewhere recorded it first.
  const { endedSessions, globalSignOut } = await recordPasswordCredentialChange(deps, {
    pendingId,
    sub: input.sub,
    email: input.email,
    kind: "password-change",
    keepSessionId: input.sessionId,
    note,
  });
  // The member just typed their password here: the session counts as recently re-authenticated.
  await recordPasswordTyped(deps.db, { sub: input.sub, sessionId: input.sessionId, at: deps.clock.now() });
  // Without the global sign-out this browser's refresh token still works: it keeps its tokens.
  if (!globalSignOut) return { kind: "changed", endedSessions, accessToken: null };
  let answer;
  try {
    answer = await deps.identity.beginSignIn({ email: input.email, password: input.newPassword });
  } catch (error) {
    // The password is changed and everyone else is out; this browser stays signed in until its access token
    // expires, and then signs in again with the new password.
    logger.warn({ err: error }, "could not sign this browser in again after a password change");
    return { kind: "changed", endedSessions, accessToken: null };
  }
  if (answer.kind === "softwareTokenRequired") {
    // Its refresh token went with the global sign-out: the session cannot outlive its access token anyway.
    await endSessions(deps, { sessionId: input.sessionId }, { reason: "password-changed" });
    return { kind: "codeStep", endedSessions, username: answer.username, session: answer.session };
  }
  if (answer.kind !== "tokens" || !answer.tokens.refreshToken) {
    throw new Error(`Cognito answered ${answer.kind} when signing in again after a password change`);
  }
  await renewSessionSignIn(deps, {
    sessionId: input.sessionId,
    refreshToken: answer.tokens.refreshToken,
    originJti: originJtiOf(answer.tokens.accessToken),
  });
  await keepNewServerToken(deps, input);
  return { kind: "changed", endedSessions, accessToken: answer.tokens.accessToken };
}

/**
 * The global sign-out revoked the server token this session kept for credential changes (the authenticator's set-up,
 * passkeys), and the member has just typed the new password: the session keeps one made with it, as a password
 * sign-in would. Without it the next credential change asks for the password again, which is all a failure here costs.
 */
async function keepNewServerToken(
  deps: PasswordChangeDependencies,
  input: { sub: string; email: string; sessionId: string; newPassword: string },
): Promise<void> {
  try {
    const checked = await checkMemberPassword(deps, {
      sub: input.sub,
      email: input.email,
      password: input.newPassword,
    });
    if (checked.kind !== "token") return;
    await keepServerToken(deps.db, {
      sessionId: input.sessionId,
      token: checked.token,
      secrets: deps.config.sessionSecrets,
    });
  } catch (error) {
    logger.warn({ err: error }, "could not keep a server token after a password change");
  }
}

/**
 * ChangePassword at Cognito, and what is true when its answer was unclear. A time-out or a dropped connection
 * ("unavailable") may come after Cognito made the change; and when the SDK retries a call that timed out after
 * Cognito made it, the retry is refused as a wrong current password ("currentPasswordMismatch"), though the password
 * was checked a moment before. Either way a password sign-in with the new password through the server-only client
 * (whose tokens never leave the server) tells: it signs in, the change was made and the flow goes on as if Cognito had
 * answered; it is refused, nothing changed and the first answer stands; no answer either, the member is told that the
 * change could not be confirmed ("passwordChangeUnconfirmed"), never that it failed.
 */
async function changePasswordAtCognito(
  deps: PasswordChangeDependencies,
  token: ServerToken,
  input: { sub: string; email: string; currentPassword: string; newPassword: string },
): Promise<void> {
  try {
    await deps.identity.changePassword({
      token,
      currentPassword: input.currentPassword,
      newPassword: input.newPassword,
    });
  } catch (error) {
    const unclear = error instanceof DomainError && ["unavailable", "currentPasswordMismatch"].includes(error.code);
    if (!unclear) throw error;
    const changed = await passwordSignsIn(deps, { sub: input.sub, email: input.email, password: input.newPassword });
    if (changed === null) throw new DomainError("passwordChangeUnconfirmed", { cause: error });
    if (!changed) throw error;
    logger.warn({ err: error }, "ChangePassword's answer was unclear, but the new password signs in: it was changed");
  }
}
