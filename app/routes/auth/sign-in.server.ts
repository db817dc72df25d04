import { getDatabase } from "../../../db/client.server";
import { SIBLING_SERVICES, getConfig } from "~/config.server";
import {
  activatePendingSession,
  deactivateDevice,
  endSession,
  listDevicesForPendingSession,
  openRefreshToken,
  pendingSessionOwner,
  pendingSignIn,
  revokeRefreshTokens,
} from "~/domain/member-session.server";
import { type SignInResult, signIn } from "~/domain/sign-in.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import type { Locale } from "~/i18n/locales";
import { resolveReturnTarget } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/routing/service-cookie.server";
import {
  clearPendingSignIn,
  readOrCreateDeviceKey,
  serializePendingSignIn,
  serializeSessionCookie,
} from "~/middleware/session-cookies.server";

/** Sibling origins members may be returned to after signing in. */
export function allowedReturnOrigins(): string[] {
  return Object.values(getConfig().services)
    .map((service) => service.origin)
    .filter((origin): origin is string => Boolean(origin))
    .map((origin) => new URL(origin).origin);
}

/**
 * Where to go after signing in: a valid `to`, else back to the sibling service that sent the member here
 * (when its origin is configured), else home.
 */
export async function returnTargetFrom(request: Request, locale: Locale): Promise<string> {
  const to = new URL(request.url).searchParams.get("to");
  const requested = resolveReturnTarget(to, locale, allowedReturnOrigins());
  if (requested) return requested;
  const service = await referrerServiceOf(request);
  const serviceOrigin = SIBLING_SERVICES.find((name) => name === service);
  return (serviceOrigin && getConfig().services[serviceOrigin].origin) || pathFor("index", locale);
}

function deps() {
  const config = getConfig();
  return {
    db: getDatabase(),
    identity: getIdentityProvider(),
    deviceLimit: config.deviceLimit,
    secrets: config.sessionSecrets,
  };
}

/** Cookies for a session that is active now. */
async function activeSessionCookies(sessionId: string, accessToken: string): Promise<string[]> {
  return [await serializeSessionCookie({ sid: sessionId, at: accessToken }), await clearPendingSignIn()];
}

export async function signInWithPassword(
  request: Request,
  input: { email: string; password: string },
): Promise<{ result: SignInResult; setCookies: string[] }> {
  const device = await readOrCreateDeviceKey(request);
  const result = await signIn(deps(), {
    ...input,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
  });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  if (result.kind === "active") setCookies.push(...(await activeSessionCookies(result.sessionId, result.accessToken)));
  else setCookies.push(await serializePendingSignIn(result.sessionId));
  return { result, setCookies };
}

export function devicesForPendingSignIn(pendingSessionId: string) {
  return listDevicesForPendingSession(getDatabase(), pendingSessionId);
}

/**
 * Revokes at Cognito as well (with retries; what Cognito cannot confirm the purge job retries); the session row is
 * already ended, which is what counts.
 */
async function revokeRefreshToken(refreshTokenEncrypted: string | null) {
  await revokeRefreshTokens({ db: getDatabase(), identity: getIdentityProvider(), secrets: getConfig().sessionSecrets }, [
    refreshTokenEncrypted,
  ]);
}

export async function deactivateForPendingSignIn(pendingSessionId: string, deviceSessionId: string) {
  const db = getDatabase();
  const sub = await pendingSessionOwner(db, pendingSessionId);
  if (!sub) return null;
  const ended = await deactivateDevice(db, { sub, sessionId: deviceSessionId });
  if (ended) await revokeRefreshToken(ended.refreshTokenEncrypted);
  return ended;
}

/**
 * Continue login from the device-limit screen: active (with cookies), still over the limit, or expired. The held
 * sign-in kept only its refresh token, so one refresh gives the access token for the cookie; it comes before the
 * activation, so Cognito being down or throttling (an IdentityError) leaves the sign-in held and no slot taken.
 */
export async function continuePendingSignIn(pendingSessionId: string) {
  const config = getConfig();
  const db = getDatabase();
  const pending = await pendingSignIn(db, pendingSessionId);
  if (!pending) return { outcome: { kind: "expired" as const } };
  // Still over the limit: no need to ask Cognito (activatePendingSession checks again under the member's lock).
  if (pending.activeDevices >= config.deviceLimit) {
    return { outcome: await activatePendingSession(db, { sessionId: pendingSessionId, deviceLimit: config.deviceLimit }) };
  }
  const refreshToken = openRefreshToken(pending, config.sessionSecrets);
  if (!refreshToken) return { outcome: { kind: "expired" as const } };
  const tokens = await getIdentityProvider().refresh(refreshToken);
  const outcome = await activatePendingSession(db, { sessionId: pendingSessionId, deviceLimit: config.deviceLimit });
  if (outcome.kind !== "active") return { outcome };
  return { outcome, setCookies: await activeSessionCookies(pendingSessionId, tokens.accessToken) };
}

/** Back from the device-limit screen: the held sign-in is dropped. */
export async function abandonPendingSignIn(pendingSessionId: string) {
  await revokeRefreshToken(await endSession(getDatabase(), pendingSessionId));
  return [await clearPendingSignIn()];
}

/** Sign-out: this browser's session ends on the server and at Cognito. */
export async function signOutSession(sessionId: string) {
  await revokeRefreshToken(await endSession(getDatabase(), sessionId));
}
