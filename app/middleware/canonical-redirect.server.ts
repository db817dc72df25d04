import { redirect, type MiddlewareFunction } from "react-router";
import { localeCookie } from "~/cookies/app-cookies.server";
import { decideCanonicalUrl } from "~/routing/canonical-url";
import { servicesOf } from "~/router-context.server";

/** Trailing-slash, ?locale= and root-language redirects for page requests (GET and HEAD only). */
export const canonicalUrlMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }, next) => {
  if (request.method !== "GET" && request.method !== "HEAD") return next();
  const decision = decideCanonicalUrl({
    url,
    rememberedLocale: localeCookie.read(request),
    acceptLanguage: request.headers.get("Accept-Language"),
  });
  if (decision.kind === "continue") return next();
  const headers = new Headers();
  if (decision.rememberLocale) {
    headers.append("Set-Cookie", localeCookie.serialize(servicesOf(context).config, decision.rememberLocale));
  }
  // Only the trailing-slash rule is permanent; the language redirects depend on the cookie and the query.
  throw redirect(decision.location, { status: decision.permanent ? 301 : 302, headers });
};
