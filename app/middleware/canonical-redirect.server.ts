import { redirect, type MiddlewareFunction } from "react-router";
import { decideCanonicalUrl } from "~/routing/canonical-url";
import { servicesOf } from "~/services.server";

export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

const LOCALE_COOKIE = "i18n_redirected";

/**
 * Remembers the chosen language, with the name and plain value ("en", not React Router's encoded JSON) that
 * Nuxt's i18n module uses in the sibling services, so the two stay readable to each other's tooling.
 */
function serializeLocaleCookie(locale: string, secure: boolean): string {
  return [
    `${LOCALE_COOKIE}=${locale}`,
    "Path=/",
    `Max-Age=${LOCALE_COOKIE_MAX_AGE_S}`,
    "SameSite=Lax",
    "HttpOnly",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

function readRememberedLocale(request: Request): string | undefined {
  const header = request.headers.get("Cookie") ?? "";
  return new RegExp(`(?:^|;\\s*)${LOCALE_COOKIE}=([^;]*)`).exec(header)?.[1];
}

/** Trailing-slash, ?locale= and root-language redirects for page requests (GET and HEAD only). */
export const canonicalUrlMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  if (request.method !== "GET" && request.method !== "HEAD") return next();
  const decision = decideCanonicalUrl({
    url: new URL(request.url),
    rememberedLocale: readRememberedLocale(request),
    acceptLanguage: request.headers.get("Accept-Language"),
  });
  if (decision.kind === "continue") return next();
  const headers = new Headers();
  if (decision.rememberLocale) {
    headers.append(
      "Set-Cookie",
      serializeLocaleCookie(decision.rememberLocale, servicesOf(context).config.secureCookies),
    );
  }
  // Only the trailing-slash rule is permanent; the language redirects depend on the cookie and the query.
  throw redirect(decision.location, { status: decision.permanent ? 301 : 302, headers });
};
