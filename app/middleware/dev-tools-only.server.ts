import { data, type MiddlewareFunction } from "react-router";
import { getConfig } from "~/config.server";

/** Internal pages (demo, design-debug style guide, dev mailbox) do not exist in production: 404. */
export const devToolsOnlyMiddleware: MiddlewareFunction<Response> = async (_args, next) => {
  if (!getConfig().devToolsEnabled) throw data(null, { status: 404 });
  return next();
};
