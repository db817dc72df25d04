import { Outlet, isRouteErrorResponse, useRouteError } from "react-router";
import { ErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { devToolsOnlyMiddleware } from "~/middleware/dev-tools-only.server";
import type { Route } from "./+types/dev-tools-layout";

export const middleware: Route.MiddlewareFunction[] = [devToolsOnlyMiddleware];

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
