import { Outlet } from "react-router";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { databaseFaultMiddleware } from "~/middleware/database-fault.server";
import type { Route } from "./+types/default-layout";

/** A page the database is down for answers the 503 page in the frame (app/middleware/database-fault.server.ts). */
export const middleware: Route.MiddlewareFunction[] = [databaseFaultMiddleware];

/** Header, main area and footer around every member-facing page. */
export default function DefaultLayout() {
  return (
    <PageFrame>
      <Outlet />
    </PageFrame>
  );
}

export const ErrorBoundary = FramedErrorPage;
