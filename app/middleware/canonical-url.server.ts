import { createCookie, redirect, type MiddlewareFunction } from "react-router";
import { getConfig } from "~/config.server";
import { decideCanonicalUrl } from "~/routing/canonical-url";

export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/** Remembers the chosen language; the name is the one the sibling services' Nuxt apps already use. */
export const localeCookie = createCookie("i18n_redirected", {
  path: "/",
  sameSite: "lax",
  httpOnly: true,
  maxAge: LOCALE_COOKIE_MAX_AGE_S,
});

async function readRememberedLocale(request: Request): Promise<string | undefined> {
  const value: unknown = await localeCookie.parse(request.headers.get("Cookie"));
  return typeof value === "string" ? value : undefined;
}

/** Trailing-slash, ?locale= and root-language redirects for page requests (GET and HEAD only). */
export const canonicalUrlMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (request.method !== "GET" && request.method !== "HEAD") return next();
  const decision = decideCanonicalUrl({
    url: new URL(request.url),
    rememberedLocale: await readRememberedLocale(request),
    acceptLanguage: request.headers.get("Accept-Language"),
  });
  if (decision.kind === "continue") return next();
  const headers = new Headers();
  if (decision.rememberLocale) {
    headers.append(
      "Set-Cookie",
      await localeCookie.serialize(decision.rememberLocale, { secure: getConfig().secureCookies }),
    );
  }
  // Only the trailing-slash rule is permanent; the language redirects depend on the cookie and the query.
  throw redirect(decision.location, { status: decision.permanent ? 301 : 302, headers });
};
