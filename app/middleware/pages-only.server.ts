import type { MiddlewareFunction } from "react-router";
import { isApiPath } from "~/routing/api-paths";

/**
 * Runs a page middleware for pages only. The API's resource routes sit under the same root, but canonical-URL
 * redirects would break callers (a POST cannot follow a 301 to a trailing slash), the API must never read the
 * session cookie (it authenticates bearer tokens alone, which is what lets it skip the origin check), and a
 * per-request i18next instance costs the API a sixth of its CPU (it translates only errors, with
 * app/api/api-response.server.ts's per-language translators).
 */
export function pagesOnly(middleware: MiddlewareFunction<Response>): MiddlewareFunction<Response> {
  return (args, next) => (isApiPath(new URL(args.request.url).pathname) ? next() : middleware(args, next));
}
