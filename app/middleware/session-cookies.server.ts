import { randomBytes } from "node:crypto";
import { type Cookie, createCookie } from "react-router";
import { getConfig } from "~/config.server";

/** Auth cookies last 30 days (spec section 9); the device key outlives sign-ins (browsers cap cookies at 400 days). */
export const SESSION_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;
export const DEVICE_COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;
export const PENDING_SIGN_IN_COOKIE_MAX_AGE_S = 10 * 60;

export interface SessionCookieValue {
  /** The member_sessions row. */
  sid: string;
  /** The short-lived Cognito access token, so page views need no upstream call. */
  at: string;
}

interface AuthCookies {
  session: Cookie;
  pendingSignIn: Cookie;
  device: Cookie;
}

let cookies: AuthCookies | undefined;

/**
 * HttpOnly, SameSite=Lax, Path=/, Secure outside plain-http development, signed with the session secrets, and set
 * on COOKIE_DOMAIN when configured: the parent domain is what lets the sibling services on sibling hosts see the
 * member signed in. SameSite=Lax does not separate sibling subdomains, so state-changing requests are also
 * checked by origin (csrf.server.ts). The `__Secure-` prefix makes browsers refuse the cookie over plain http.
 */
function getAuthCookies(): AuthCookies {
  if (!cookies) {
    const config = getConfig();
    const prefix = config.secureCookies ? "__Secure-" : "";
    const base = {
      path: "/",
      httpOnly: true,
      sameSite: "lax" as const,
      secure: config.secureCookies,
      domain: config.cookieDomain,
      secrets: config.sessionSecrets,
    };
    cookies = {
      session: createCookie(`${prefix}id_session`, { ...base, maxAge: SESSION_COOKIE_MAX_AGE_S }),
      pendingSignIn: createCookie(`${prefix}id_pending_sign_in`, { ...base, maxAge: PENDING_SIGN_IN_COOKIE_MAX_AGE_S }),
      device: createCookie(`${prefix}id_device`, { ...base, maxAge: DEVICE_COOKIE_MAX_AGE_S }),
    };
  }
  return cookies;
}

function isSessionCookieValue(value: unknown): value is SessionCookieValue {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as SessionCookieValue).sid === "string" &&
    typeof (value as SessionCookieValue).at === "string"
  );
}

export async function readSessionCookie(request: Request): Promise<SessionCookieValue | null> {
  const value: unknown = await getAuthCookies().session.parse(request.headers.get("Cookie"));
  return isSessionCookieValue(value) ? value : null;
}

export function serializeSessionCookie(value: SessionCookieValue): Promise<string> {
  return getAuthCookies().session.serialize(value);
}

export function clearSessionCookie(): Promise<string> {
  return getAuthCookies().session.serialize("", { maxAge: 0 });
}

export async function readPendingSignIn(request: Request): Promise<string | null> {
  const value: unknown = await getAuthCookies().pendingSignIn.parse(request.headers.get("Cookie"));
  return typeof value === "string" ? value : null;
}

export function serializePendingSignIn(sessionId: string): Promise<string> {
  return getAuthCookies().pendingSignIn.serialize(sessionId);
}

export function clearPendingSignIn(): Promise<string> {
  return getAuthCookies().pendingSignIn.serialize("", { maxAge: 0 });
}

/** The browser's device key, and a Set-Cookie when it had none yet. */
export async function readOrCreateDeviceKey(request: Request): Promise<{ deviceKey: string; setCookie?: string }> {
  const value: unknown = await getAuthCookies().device.parse(request.headers.get("Cookie"));
  if (typeof value === "string" && value.length > 0) return { deviceKey: value };
  const deviceKey = randomBytes(18).toString("base64url");
  return { deviceKey, setCookie: await getAuthCookies().device.serialize(deviceKey) };
}
