import { Outlet, isRouteErrorResponse, useRouteError } from "react-router";
import { ErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";

/** Header, main area and footer around every member-facing page. */
export default function DefaultLayout() {
  return (
    <PageFrame>
      <Outlet />
    </PageFrame>
  );
}

/** 404, 500 and 503 inside the same frame, so the member keeps the header, menu and language switch. */
export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <PageFrame>
      <ErrorPage status={status} />
    </PageFrame>
  );
}
