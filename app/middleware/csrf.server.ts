import { type MiddlewareFunction, data } from "react-router";
import { getConfig } from "~/config.server";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a state-changing request may proceed: browsers say where a request comes from (Sec-Fetch-Site, Origin),
 * and only our own origin may post with our cookies. Sibling subdomains are refused too: SameSite=Lax treats them
 * as same-site, which is exactly why this check exists. Clients that send neither header (curl, server-to-server)
 * carry no ambient browser cookies to abuse.
 */
export function isSameOriginRequest(request: Request, ownOrigin: string): boolean {
  const fetchSite = request.headers.get("Sec-Fetch-Site");
  if (fetchSite) return fetchSite === "same-origin" || fetchSite === "none";
  const origin = request.headers.get("Origin");
  return origin === null || origin === ownOrigin;
}

export const csrfMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (SAFE_METHODS.has(request.method) || isSameOriginRequest(request, getConfig().origin)) return next();
  throw data(null, { status: 403 });
};
