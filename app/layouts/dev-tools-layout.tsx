import { Outlet, isRouteErrorResponse, useRouteError } from "react-router";
import { ErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { requireDevTools } from "~/routing/dev-tools-only.server";

/** Internal pages exist in development and preview only. */
export function loader() {
  requireDevTools();
  return null;
}

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
