import type { MiddlewareFunction } from "react-router";
import { isDatabaseReachable } from "~db/client.server";
import { servicesOf } from "~/router-context.server";
import { peekMember, serviceUnavailable } from "./member-session.server";

/**
 * The layouts' first middleware: a page that could not be served because the database is down answers the
 * 503 page inside the site frame, not a 500; the next request after the database is back is
 * served normally (the connection pool reconnects by itself). Thrown after next(), so the root's data (frame,
 * translations) is there and the layout's own error boundary draws the page. Cases: the session check could not
 * reach the database (the member is unknown), or the page failed with a 500 while the database does not answer.
 */
export const databaseFaultMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  const response = await next();
  if (peekMember(context).databaseUnavailable) serviceUnavailable();
  if (response.status === 500 && !(await isDatabaseReachable(servicesOf(context).db))) serviceUnavailable();
  return response;
};
