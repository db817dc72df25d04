import { type Config, SIBLING_SERVICES } from "~/config.server";
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
import type { Locale } from "~/i18n/locales";
import { resolveReturnTarget } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/routing/service-cookie.server";
import type { AppServices } from "~/services.server";
import {
  clearPendingSignIn,
  readOrCreateDeviceKey,
  serializePendingSignIn,
  serializeSessionCookie,
} from "~/middleware/session-cookies.server";

/** Sibling origins members may be returned to after signing in. */
export function allowedReturnOrigins(config: Config): string[] {
  return Object.values(config.services)
    .map((service) => service.origin)
    .filter((origin): origin is string => Boolean(origin))
    .map((origin) => new URL(origin).origin);
}

/**
 * Where to go after signing in: a valid `to`, else back to the sibling service that sent the member here
 * (when its origin is configured), else home.
 */
export async function returnTargetFrom(config: Config, request: Request, locale: Locale): Promise<string> {
  const to = new URL(request.url).searchParams.get("to");
  const requested = resolveReturnTarget(to, locale, allowedReturnOrigins(config));
  if (requested) return requested;
  const service = await referrerServiceOf(request);
  const serviceOrigin = SIBLING_SERVICES.find((name) => name === service);
  return (serviceOrigin && config.services[serviceOrigin].origin) || pathFor("index", locale);
}

function deps({ config, db, identity }: AppServices) {
  return {
    db,
    identity,
    deviceLimit: config.deviceLimit,
    secrets: config.sessionSecrets,
  };
}

/** Cookies for a session that is active now. */
async function activeSessionCookies(sessionId: string, accessToken: string): Promise<string[]> {
  return [await serializeSessionCookie({ sid: sessionId, at: accessToken }), await clearPendingSignIn()];
}

export async function signInWithPassword(
  services: AppServices,
  request: Request,
  input: { email: string; password: string },
): Promise<{ result: SignInResult; setCookies: string[] }> {
  const device = await readOrCreateDeviceKey(request);
  const result = await signIn(deps(services), {
    ...input,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
  });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  if (result.kind === "active") setCookies.push(...(await activeSessionCookies(result.sessionId, result.accessToken)));
  else setCookies.push(await serializePendingSignIn(result.sessionId));
  return { result, setCookies };
}

export function devicesForPendingSignIn({ db }: AppServices, pendingSessionId: string) {
  return listDevicesForPendingSession(db, pendingSessionId);
}

/**
 * Revokes at Cognito as well (with retries; what Cognito cannot confirm the purge job retries); the session row is
 * already ended, which is what counts.
 */
async function revokeRefreshToken({ db, identity, config }: AppServices, refreshTokenEncrypted: string | null) {
  await revokeRefreshTokens({ db, identity, secrets: config.sessionSecrets }, [
    refreshTokenEncrypted,
  ]);
}

export async function deactivateForPendingSignIn(services: AppServices, pendingSessionId: string, deviceSessionId: string) {
  const { db } = services;
  const sub = await pendingSessionOwner(db, pendingSessionId);
  if (!sub) return null;
  const ended = await deactivateDevice(db, { sub, sessionId: deviceSessionId });
  if (ended) await revokeRefreshToken(services, ended.refreshTokenEncrypted);
  return ended;
}

/**
 * Continue login from the device-limit screen: active (with cookies), still over the limit, or expired. The held
 * sign-in kept only its refresh token, so one refresh gives the access token for the cookie; it comes before the
 * activation, so Cognito being down or throttling (an IdentityError) leaves the sign-in held and no slot taken.
 */
export async function continuePendingSignIn({ config, db, identity }: AppServices, pendingSessionId: string) {
  const pending = await pendingSignIn(db, pendingSessionId);
  if (!pending) return { outcome: { kind: "expired" as const } };
  // Still over the limit: no need to ask Cognito (activatePendingSession checks again under the member's lock).
  if (pending.activeDevices >= config.deviceLimit) {
    return { outcome: await activatePendingSession(db, { sessionId: pendingSessionId, deviceLimit: config.deviceLimit }) };
  }
  const refreshToken = openRefreshToken(pending, config.sessionSecrets);
  if (!refreshToken) return { outcome: { kind: "expired" as const } };
  const tokens = await identity.refresh(refreshToken);
  const outcome = await activatePendingSession(db, { sessionId: pendingSessionId, deviceLimit: config.deviceLimit });
  if (outcome.kind !== "active") return { outcome };
  return { outcome, setCookies: await activeSessionCookies(pendingSessionId, tokens.accessToken) };
}

/** Back from the device-limit screen: the held sign-in is dropped. */
export async function abandonPendingSignIn(services: AppServices, pendingSessionId: string) {
  await revokeRefreshToken(services, await endSession(services.db, pendingSessionId));
  return [await clearPendingSignIn()];
}

/** Sign-out: this browser's session ends on the server and at Cognito. */
export async function signOutSession(services: AppServices, sessionId: string) {
  await revokeRefreshToken(services, await endSession(services.db, sessionId));
}
