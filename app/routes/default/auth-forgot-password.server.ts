import type { Config } from "~/config.server";
import {
  PASSWORD_RESET_COOKIE_MAX_AGE_S,
  type PasswordResetState,
  passwordResetCookie,
} from "~/cookies/app-cookies.server";

/** The reset under way in this browser, or null (none, tampered with, or older than the cookie's lifetime). */
export async function readPasswordReset(
  config: Config,
  request: Request,
  now = Date.now(),
): Promise<PasswordResetState | null> {
  const value = await passwordResetCookie.read(config, request);
  return value && value.expiresAt > now ? value : null;
}

/** The reset cookie for the address, `sends` codes in: the 30 minutes start again from now. */
export function serializePasswordReset(config: Config, email: string, sends: number): Promise<string> {
  const expiresAt = Date.now() + PASSWORD_RESET_COOKIE_MAX_AGE_S * 1000;
  return passwordResetCookie.serialize(config, { email, sends, expiresAt });
}

export function clearPasswordReset(config: Config): Promise<string> {
  return passwordResetCookie.clear(config);
}
