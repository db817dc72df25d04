import type { RouterContextProvider } from "react-router";
import { redirect } from "react-router";
import { type Config, SIBLING_SERVICES } from "~/config.server";
import {
  CODE_CHALLENGE_COOKIE_MAX_AGE_S,
  NEW_PASSWORD_CHALLENGE_COOKIE_MAX_AGE_S,
  codeChallengeCookie,
  type NewPasswordChallengeState,
  localeCookie,
  newPasswordChallengeCookie,
  pendingSignInCookie,
  readOrCreateDeviceKey,
  sessionCookie,
} from "~/cookies/app-cookies.server";
import { findPreferredLanguageOfSession } from "~/domain/account/profile.server";
import {
  type CodeRequired,
  type NewPasswordRequired,
  type SignInResult,
  completeCodeSignIn,
  completeFirstSignIn,
  signIn,
  signInWithRecoveryCode,
} from "~/domain/account/sign-in.server";
import { type Locale, isLocale, pathnameForLocale } from "~/i18n/locales";
import { resolveReturnTarget } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/middleware/service-cookie.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { PageRequest } from "~/routing/page-request";

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
export async function returnTargetFrom({ request, url }: PageRequest, locale: Locale, config: Config): Promise<string> {
  const to = url.searchParams.get("to");
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

/** The cookies a finished sign-in leaves: the session's when active, the held sign-in's at the device limit. */
export async function signedInCookies(config: Config, result: SignInResult): Promise<string[]> {
  return result.kind === "active"
    ? activeSessionCookies(config, result.sessionId, result.accessToken)
    : [await pendingSignInCookie.serialize(config, result.sessionId)];
}

/** The sign-in form's post: the domain's sign-in for this browser's device key, and the cookies it leaves. */
export async function signInWithPassword(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { email: string; password: string },
  /** The page's language, for the alert mail a sign-in from a new browser sends. */
  locale: Locale,
): Promise<{ result: SignInResult | NewPasswordRequired | CodeRequired; setCookies: string[] }> {
  const services = servicesOf(context);
  const device = await readOrCreateDeviceKey(services.config, request);
  const result = await signIn(services, {
    ...input,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
    clientIp: clientIpOf(context),
    locale,
  });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  if (result.kind === "newPasswordRequired") {
    const { email, username, session } = result;
    const expiresAt = Date.now() + NEW_PASSWORD_CHALLENGE_COOKIE_MAX_AGE_S * 1000;
    setCookies.push(
      await newPasswordChallengeCookie.serialize(services.config, { email, username, session, expiresAt }),
    );
  } else if (result.kind === "codeRequired") {
    const { email, username, session } = result;
    const expiresAt = Date.now() + CODE_CHALLENGE_COOKIE_MAX_AGE_S * 1000;
    setCookies.push(await codeChallengeCookie.serialize(services.config, { email, username, session, expiresAt }));
  } else {
    setCookies.push(...(await signedInCookies(services.config, result)));
  }
  return { result, setCookies };
}

/** The invited member's first sign-in under way in this browser, or null (none, tampered with, or too old). */
export async function readNewPasswordChallenge(
  config: Config,
  request: Request,
  now = Date.now(),
): Promise<NewPasswordChallengeState | null> {
  const value = await newPasswordChallengeCookie.read(config, request);
  return value && value.expiresAt > now ? value : null;
}

/** The "choose your password" post: the challenge answered, the session started, the challenge cookie gone. */
export async function signInWithFirstPassword(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { challenge: NewPasswordChallengeState; newPassword: string },
  /** The page's language, for the alert mail a sign-in from a new browser sends. */
  locale: Locale,
): Promise<{ result: SignInResult; setCookies: string[] }> {
  const services = servicesOf(context);
  const device = await readOrCreateDeviceKey(services.config, request);
  const result = await completeFirstSignIn(services, {
    email: input.challenge.email,
    username: input.challenge.username,
    session: input.challenge.session,
    newPassword: input.newPassword,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
    clientIp: clientIpOf(context),
    locale,
  });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  setCookies.push(await newPasswordChallengeCookie.clear(services.config));
  setCookies.push(...(await signedInCookies(services.config, result)));
  return { result, setCookies };
}

/** The sign-in of a member with 2-step verification waiting for its code in this browser, or null. */
export async function readCodeChallenge(
  config: Config,
  request: Request,
  now = Date.now(),
): Promise<NewPasswordChallengeState | null> {
  const value = await codeChallengeCookie.read(config, request);
  return value && value.expiresAt > now ? value : null;
}

/**
 * The code step's post, with the app's code or with a recovery code (and the password again): the session started,
 * the challenge cookie gone.
 */
export async function signInWithSecondFactor(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { challenge: NewPasswordChallengeState } & ({ code: string } | { recoveryCode: string; password: string }),
  /** The page's language, for the alert mail a sign-in from a new browser sends. */
  locale: Locale,
): Promise<{ result: SignInResult; setCookies: string[] }> {
  const services = servicesOf(context);
  const device = await readOrCreateDeviceKey(services.config, request);
  const browser = {
    email: input.challenge.email,
    username: input.challenge.username,
    deviceKey: device.deviceKey,
    userAgent: request.headers.get("User-Agent"),
    clientIp: clientIpOf(context),
    locale,
  };
  const result =
    "code" in input
      ? await completeCodeSignIn(services, { ...browser, session: input.challenge.session, code: input.code })
      : await signInWithRecoveryCode(services, {
          ...browser,
          session: input.challenge.session,
          password: input.password,
          recoveryCode: input.recoveryCode,
        });
  const setCookies = device.setCookie ? [device.setCookie] : [];
  setCookies.push(await codeChallengeCookie.clear(services.config));
  setCookies.push(...(await signedInCookies(services.config, result)));
  return { result, setCookies };
}

/** A path of ours in another language, its query and fragment kept ("/my/devices/?a=1" -> "/en/my/devices/?a=1"). */
function pageInLocale(path: string, locale: Locale): string {
  const url = new URL(path, "http://page.invalid");
  return `${pathnameForLocale(url.pathname, locale)}${url.search}${url.hash}`;
}

/**
 * Where an active sign-in lands. The profile's preferred language is the member's default UI language (spec): when
 * they chose one, it becomes the remembered language (i18n_redirected, which the root's redirect follows) and a page of
 * ours opens in it. A member who never saved a profile stays in the sign-in page's language.
 */
async function landingAfterSignIn(
  context: Readonly<RouterContextProvider>,
  page: PageRequest,
  input: { locale: Locale; config: Config; sessionId: string },
): Promise<{ location: string; setCookie?: string }> {
  const preferred = await findPreferredLanguageOfSession(servicesOf(context).db, input.sessionId);
  if (!isLocale(preferred)) return { location: await returnTargetFrom(page, input.locale, input.config) };
  const target = await returnTargetFrom(page, preferred, input.config);
  return {
    location: target.startsWith("/") ? pageInLocale(target, preferred) : target,
    setCookie: localeCookie.serialize(input.config, preferred),
  };
}

/**
 * Where a finished sign-in goes, the same from the sign-in form, from "Continue login" on the device-limit screen and
 * from the first sign-in's new password: at the device limit back to the sign-in page (its device-limit screen, `to`
 * kept), otherwise on to `to` or the default, in the member's preferred language, with the "logged in" toast.
 */
export async function redirectAfterSignIn(
  context: Readonly<RouterContextProvider>,
  page: PageRequest,
  input: { locale: Locale; config: Config; result: SignInResult; setCookies: string[] },
): Promise<Response> {
  const headers = new Headers();
  for (const cookie of input.setCookies) headers.append("Set-Cookie", cookie);
  if (input.result.kind === "deviceLimit") {
    return redirect(`${pathFor("auth-sign-in", input.locale)}${page.url.search}`, { headers });
  }
  const landing = await landingAfterSignIn(context, page, { ...input, sessionId: input.result.sessionId });
  if (landing.setCookie) headers.append("Set-Cookie", landing.setCookie);
  return getToastUtils(context).redirectWithSuccess(landing.location, "loggedIn", { headers });
}
