import type { MiddlewareFunction } from "react-router";
import type { PageRequest } from "~/routing/page-request";

/**
 * The sections whose pages show what this browser's cookies hold: the sign-in device-limit step, the sign-up code
 * step and the password-reset confirm step (/auth/…), the member's own pages (/my/…), e-mail change and sign-in
 * alert links, the staff pages (/admin/…), and the newsletter's unsubscribe links (one member's, by their token).
 */
const PRIVATE_SECTIONS = /^(?:\/en)?\/(?:auth|my|email-update|sign-in-alert|newsletter\/unsubscribe|admin)(?:\/|$)/;
/**
 * The session and flow cookies, whatever prefix they carry (__Secure-, __Host-): a page rendered with one of them
 * may show its holder's address or account. The device key is not among them: it is read at sign-in only, and
 * every browser that ever signed in keeps it on every page.
 */
const SESSION_AND_FLOW_COOKIE =
  /(?:^|;\s*)(?:__Secure-|__Host-)?id_(?:session|pending_sign_in|sign_up|password_reset|new_password)=/;

/** Whether a page response is one browser's own, never to be kept by a shared cache or the browser's disk cache. */
export function isPrivatePageResponse({ request, url }: PageRequest, response: Response): boolean {
  return (
    PRIVATE_SECTIONS.test(url.pathname) ||
    SESSION_AND_FLOW_COOKIE.test(request.headers.get("Cookie") ?? "") ||
    // A response that sets a cookie is one browser's by definition.
    response.headers.has("Set-Cookie")
  );
}

/**
 * One rule for every page instead of a `headers` export per route so none can be forgotten: private pages, redirects
 * and errors included, are `Cache-Control: no-store`, and no shared cache keeps a member's data. Outermost in the
 * root's middleware, so it sees the final response.
 */
export const noStoreMiddleware: MiddlewareFunction<Response> = async (args, next) => {
  const response = await next();
  if (isPrivatePageResponse(args, response)) response.headers.set("Cache-Control", "no-store");
  return response;
};
