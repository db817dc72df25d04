import type { MiddlewareFunction } from "react-router";
import { runWithRequestId } from "~/integrations/logger.server";
import { requestInfoContext } from "~/router-context.server";

/**
 * Every log line written while a page request is handled carries its request id, domain code's warnings
 * included, without passing it by hand. Outermost in the root's middleware, so the rest runs inside it. It also
 * hands the HTTP layer the matched route's pattern, which its metrics name the route by.
 */
export const requestLogMiddleware: MiddlewareFunction<Response> = ({ context, pattern }, next) => {
  const requestInfo = context.get(requestInfoContext);
  requestInfo.routePattern = pattern;
  return runWithRequestId(requestInfo.requestId, next);
};
