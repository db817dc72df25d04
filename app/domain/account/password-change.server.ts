import type { Locale } from "~/i18n/locales";
import type { IdentityTokens } from "~/integrations/cognito/member-flows.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { DomainError, toDomainError } from "../domain-error.server";
import { queueNotice } from "../mail/mail-outbox.server";
import { twoStepStatusOf } from "../security/two-step-verification.server";
import { renewSessionSignIn } from "../sessions/page-sessions.server";
import { endSessions, signOutEverywhere } from "../sessions/session-ending.server";
import { recordPasswordTyped } from "./reauthentication.server";
import { refuseWeakPassword } from "./password-strength.server";
import { originJtiOf } from "./sign-in.server";

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
       * The password is changed and everyone is signed out, this browser too: Cognito refused the authenticator
       * code when it was signed in again. The member signs in again with the new password.
       */
      kind: "signInAgain";
      endedSessions: number;
    };

/**
 * Changes the member's password with their access token (a wrong current password comes out as the DomainError
 * "currentPasswordMismatch"), then signs out every other sign-in. Their session rows end, which is what signs
 * other browsers out on their next request. Cognito keeps refresh tokens through a password change, so a global
 * sign-out revokes every one of them, including sign-ins no session of ours records (a sibling service's before
 * it registers the device): none can mint another access token, and the member API refuses the ones they hold
 * (recordSignOutEverywhere). This browser is then signed in again with the new password and keeps its session.
 * If the global sign-out fails, the ended sessions' refresh tokens are revoked one by one instead (best effort),
 * and this browser keeps its tokens. A new password too easy to guess, or made of the member's address or name (the
 * stored profile's), is refused before Cognito is asked. The account is mailed that its password changed (after the
 * response).
 *
 * A member with 2-step verification gives the authenticator app's code with the change (a missing one is
 * "codeRequired", before Cognito is asked), since signing this browser in again with the new password is answered
 * with Cognito's code challenge. Cognito can only check the code there, after the change and the global sign-out:
 * if it refuses it, this browser's session ends as well and the answer is "signInAgain" (the password stays changed).
 */
export async function changePassword(
  deps: PasswordChangeDependencies,
  input: {
    sub: string;
    email: string;
    sessionId: string;
    accessToken: string;
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
  await deps.identity.changePassword({
    accessToken: input.accessToken,
    currentPassword: input.currentPassword,
    newPassword: input.newPassword,
  });
  const now = deps.clock.now();
  const { endedSessions, globalSignOut } = await signOutEverywhere(deps, {
    sub: input.sub,
    keepSessionId: input.sessionId,
    record: { kind: "password-changed", clientIp: input.clientIp },
  });
  await queueNotice(deps.db, {
    kind: "passwordChanged",
    details: { changedAt: now.toISOString() },
    recipient: input.email,
    sub: input.sub,
    requestLocale: input.locale,
    now,
  });
  // The member just typed their password here: the session counts as recently re-authenticated.
  await recordPasswordTyped(deps.db, { sub: input.sub, sessionId: input.sessionId, at: deps.clock.now() });
  // Without the global sign-out this browser's refresh token still works: it keeps its tokens.
  if (!globalSignOut) return { kind: "changed", endedSessions, accessToken: null };
  let tokens: IdentityTokens;
  try {
    tokens = await signInAgain(deps, { email: input.email, password: input.newPassword, code: input.code });
  } catch (error) {
    if (toDomainError(error)?.code === "codeMismatch") {
      // Its refresh token went with the global sign-out: the session cannot outlive its access token anyway.
      await endSessions(deps, { sessionId: input.sessionId });
      return { kind: "signInAgain", endedSessions };
    }
    // The password is changed and everyone else is out; this browser stays signed in until its access token
    // expires, and then signs in again with the new password.
    logger.warn({ err: error }, "could not sign this browser in again after a password change");
    return { kind: "changed", endedSessions, accessToken: null };
  }
  if (!tokens.refreshToken) throw new Error("Cognito returned no refresh token at sign-in");
  await renewSessionSignIn(deps, {
    sessionId: input.sessionId,
    refreshToken: tokens.refreshToken,
    originJti: originJtiOf(tokens.accessToken),
  });
  return { kind: "changed", endedSessions, accessToken: tokens.accessToken };
}

/** A password sign-in, with Cognito's code challenge answered when the member uses 2-step verification. */
async function signInAgain(
  deps: PasswordChangeDependencies,
  input: { email: string; password: string; code: string | undefined },
): Promise<IdentityTokens> {
  const answer = await deps.identity.beginSignIn({ email: input.email, password: input.password });
  if (answer.kind === "tokens") return answer.tokens;
  if (answer.kind === "softwareTokenRequired" && input.code) {
    return deps.identity.answerSoftwareTokenChallenge({
      username: answer.username,
      session: answer.session,
      code: input.code,
    });
  }
  throw new Error(`Cognito asked for ${answer.kind} when signing in again after a password change`);
}
