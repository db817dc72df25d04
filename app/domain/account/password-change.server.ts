import type { Locale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { queueNotice } from "../mail/mail-outbox.server";
import { renewSessionSignIn } from "../sessions/page-sessions.server";
import { signOutEverywhere } from "../sessions/session-ending.server";
import { recordPasswordTyped } from "./reauthentication.server";
import { refuseWeakPassword } from "./password-strength.server";
import { originJtiOf } from "./sign-in.server";

export type PasswordChangeDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export interface PasswordChangeResult {
  endedSessions: number;
  /** This browser's new access token, for its session cookie; null when it keeps the one it had. */
  accessToken: string | null;
}

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
    familyName: string | null;
    givenName: string | null;
    /** The request's client IP, for the security record. */
    clientIp: string;
    /** The page's language: the mail's when the member chose none. */
    locale: Locale;
  },
): Promise<PasswordChangeResult> {
  await refuseWeakPassword(input.newPassword, input);
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
  if (!globalSignOut) return { endedSessions, accessToken: null };
  try {
    const tokens = await deps.identity.signIn({ email: input.email, password: input.newPassword });
    if (!tokens.refreshToken) throw new Error("Cognito returned no refresh token at sign-in");
    await renewSessionSignIn(deps, {
      sessionId: input.sessionId,
      refreshToken: tokens.refreshToken,
      originJti: originJtiOf(tokens.accessToken),
    });
    return { endedSessions, accessToken: tokens.accessToken };
  } catch (error) {
    // The password is changed and everyone else is out; this browser stays signed in until its access token
    // expires, and then signs in again with the new password.
    logger.warn({ err: error }, "could not sign this browser in again after a password change");
    return { endedSessions, accessToken: null };
  }
}
