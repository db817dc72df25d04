import { type Cookie, createCookie } from "react-router";
import type { Config } from "~/config.server";

/**
 * How long the reset remembers the address between its two steps. Cognito's code lives an hour; half of that is
 * plenty to read a mail, and a forgotten tab falls back to the first step instead of naming the address.
 */
export const PASSWORD_RESET_COOKIE_MAX_AGE_S = 30 * 60;

export interface PasswordResetState {
  email: string;
  /** How many codes this reset has asked for: the page says "a new code" after a resend. */
  sends: number;
  /** Epoch ms. Checked here too, because the signature alone would accept the value for ever. */
  expiresAt: number;
}

type CookieConfig = Pick<Config, "secureCookies" | "sessionSecrets">;

/**
 * The reset's state, so the two steps work without JavaScript: HttpOnly, SameSite=Lax, Path=/, signed with the
 * session secrets, Secure outside plain-http development. Unlike the session cookies it stays on this host (no
 * Domain): no sibling service needs it, so over https it takes the stricter `__Host-` prefix.
 */
function passwordResetCookie(config: CookieConfig): Cookie {
  return createCookie(`${config.secureCookies ? "__Host-" : ""}id_password_reset`, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.secureCookies,
    secrets: config.sessionSecrets,
    maxAge: PASSWORD_RESET_COOKIE_MAX_AGE_S,
  });
}

function isPasswordResetState(value: unknown): value is PasswordResetState {
  if (typeof value !== "object" || value === null) return false;
  const state = value as PasswordResetState;
  return typeof state.email === "string" && typeof state.sends === "number" && typeof state.expiresAt === "number";
}

/** The reset under way in this browser, or null (none, tampered with, or older than the cookie's lifetime). */
export async function readPasswordReset(config: CookieConfig, request: Request, now = Date.now()): Promise<PasswordResetState | null> {
  const value: unknown = await passwordResetCookie(config).parse(request.headers.get("Cookie"));
  return isPasswordResetState(value) && value.expiresAt > now ? value : null;
}

/** The reset cookie for the address, `sends` codes in: the 30 minutes start again from now. */
export function serializePasswordReset(config: CookieConfig, email: string, sends: number): Promise<string> {
  const expiresAt = Date.now() + PASSWORD_RESET_COOKIE_MAX_AGE_S * 1000;
  return passwordResetCookie(config).serialize({ email, sends, expiresAt } satisfies PasswordResetState);
}

export function clearPasswordReset(config: CookieConfig): Promise<string> {
  return passwordResetCookie(config).serialize("", { maxAge: 0 });
}
