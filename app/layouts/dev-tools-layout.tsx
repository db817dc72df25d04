import { Outlet, data, isRouteErrorResponse, useRouteError } from "react-router";
import { ErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { getConfig } from "~/config.server";
import type { Route } from "./+types/dev-tools-layout";

/** Internal pages (demo, design-debug style guide, dev mailbox) do not exist in production. */
export const middleware: Route.MiddlewareFunction[] = [
  async (_args, next) => {
    if (!getConfig().devToolsEnabled) throw data(null, { status: 404 });
    return next();
  },
];

export default function DevToolsLayout() {
  return (
    <PageFrame>
      <div className="dev-tools">
        <Outlet />
      </div>
    </PageFrame>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <PageFrame>
      <ErrorPage status={status} />
    </PageFrame>
  );
}
