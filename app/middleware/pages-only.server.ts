import type { MiddlewareFunction } from "react-router";
import { isApiPath, isWellKnownPath } from "~/routing/api-paths";

/**
 * A root middleware that runs for pages only. The member API's routes sit under the root like every route (React
 * Router's framework mode has one root), but the root's middleware is the pages': canonical redirects (a POST could
 * not follow one), the session cookie (the API reads bearer tokens, never cookies), the language from the path (the
 * API's comes from Accept-Language) and the pages' log context and no-store rule. The API's routes do their own
 * (app/api/api-handler.server.ts). The documents under /.well-known/ skip it too: they live at one exact address,
 * in no language, read no session and may be cached. Decided by the route React Router matched, so whatever path reaches an API
 * route (`/API/…`, `/%61pi/…`) is treated as the API, as the HTTP layer treats it (app/server/http-app.ts).
 */
export function pagesOnly(middleware: MiddlewareFunction<Response>): MiddlewareFunction<Response> {
  return (args, next) => {
    const pattern = `/${args.pattern}`;
    return isApiPath(pattern) || isWellKnownPath(pattern) ? next() : middleware(args, next);
  };
}

/**
 * A root middleware for every route but the API's (which logs for itself): the pages and the /.well-known/
 * documents. The request log's, so that a document's log lines carry their request id and its metrics name its route.
 */
export function exceptApi(middleware: MiddlewareFunction<Response>): MiddlewareFunction<Response> {
  return (args, next) => (isApiPath(`/${args.pattern}`) ? next() : middleware(args, next));
}
