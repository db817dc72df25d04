import { type Config, SIBLING_SERVICES } from "~/config.server";
import { pendingSignInCookie, readOrCreateDeviceKey, sessionCookie } from "~/cookies/app-cookies.server";
import { type SignInResult, signIn } from "~/domain/sign-in.server";
import type { Locale } from "~/i18n/locales";
import { resolveReturnTarget } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/routing/service-cookie.server";
import type { AppServices } from "~/services.server";

/** Sibling origins members may be returned to after signing in. */
function allowedReturnOrigins(config: Config): string[] {
  return Object.values(config.services)
    .map((service) => service.origin)
    .filter((origin): origin is string => Boolean(origin))
    .map((origin) => new URL(origin).origin);
}

/**
 * Where to go after signing in: a valid `to`, else back to the sibling service that sent the member here
 * (when its origin is configured), else home.
 */
export async function returnTargetFrom(request: Request, locale: Locale, config: Config): Promise<string> {
  const to = new URL(request.url).searchParams.get("to");
  const requested = resolveReturnTarget(to, locale, allowedReturnOrigins(config));
  if (requested) return requested;
  const service = await referrerServiceOf(request, config);
  const serviceOrigin = SIBLING_SERVICES.find((name) => name === service);
  return (serviceOrigin && config.services[serviceOrigin].origin) || pathFor("index", locale);
}

/** Cookies for a session that is active now. */
export async function activeSessionCookies(config: Config, sessionId: string, accessToken: string): Promise<string[]> {
  return [
    await sessionCookie.serialize(config, { sid: sessionId, at: accessToken }),
    await pendingSignInCookie.clear(config),
  ];
}

/** The sign-in form's post: the domain's sign-in for this browser's device key, and the cookies it leaves. */
export async function signInWithPassword(
  services: AppServices,
  request: Request,
  input: { email: string; password: string },
): Promise<{ result: SignInResult; setCookies: string[] }> {
  const device = await readOrCreateDeviceKey(services.config, request);
  const result = await signIn(services, {
    ...input,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
  });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  if (result.kind === "active") {
    setCookies.push(...(await activeSessionCookies(services.config, result.sessionId, result.accessToken)));
  } else {
    setCookies.push(await pendingSignInCookie.serialize(services.config, result.sessionId));
  }
  return { result, setCookies };
}
