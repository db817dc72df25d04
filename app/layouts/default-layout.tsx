import { Outlet } from "react-router";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";

/** Header, main area and footer around every member-facing page. */
export default function DefaultLayout() {
  return (
    <PageFrame>
      <Outlet />
    </PageFrame>
  );
}

export const ErrorBoundary = FramedErrorPage;
