import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import {
  PASSWORD_RESET_COOKIE_MAX_AGE_S,
  type PasswordResetState,
  passwordResetCookie,
} from "~/cookies/app-cookies.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/password-reset.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import { systemClock } from "~/services.server";

/** The reset under way in this browser, or null (none, tampered with, or older than the cookie's lifetime). */
export async function readPasswordReset(request: Request, now = Date.now()): Promise<PasswordResetState | null> {
  const value = await passwordResetCookie.read(getConfig(), request);
  return value && value.expiresAt > now ? value : null;
}

function serializePasswordReset(email: string, sends: number): Promise<string> {
  const expiresAt = Date.now() + PASSWORD_RESET_COOKIE_MAX_AGE_S * 1000;
  return passwordResetCookie.serialize(getConfig(), { email, sends, expiresAt });
}

export function clearPasswordReset(): Promise<string> {
  return passwordResetCookie.clear(getConfig());
}

/** Step 1: a code is mailed if the address has an ID; either way the answer is the cookie for step 2. */
export async function startPasswordReset(email: string): Promise<string> {
  await requestPasswordReset(getIdentityProvider(), email);
  return serializePasswordReset(email, 1);
}

/** "Send the code again": a fresh code, and the 30 minutes start again from it. */
export async function resendPasswordResetCode(state: PasswordResetState): Promise<string> {
  await requestPasswordReset(getIdentityProvider(), state.email);
  return serializePasswordReset(state.email, state.sends + 1);
}

/** Step 2: the new password is set; the answer is the Set-Cookie that ends the reset. */
export async function finishPasswordReset(
  state: PasswordResetState,
  input: { code: string; password: string },
): Promise<string> {
  await confirmPasswordReset(
    { db: getDatabase(), identity: getIdentityProvider(), config: getConfig(), clock: systemClock },
    { email: state.email, ...input },
  );
  return clearPasswordReset();
}
