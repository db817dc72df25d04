import { Outlet } from "react-router";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { databaseFaultMiddleware } from "~/middleware/database-fault.server";
import { peekMember } from "~/middleware/member-session.server";
import { redirectToSignIn } from "~/middleware/require-member.server";
import type { Route } from "./+types/member-layout";

/**
 * Every `my-*` page needs a signed-in member; anyone else goes to sign-in with `to=<route name>` and comes
 * back after signing in. Middleware, so client-side navigations are guarded too. A member the database could not
 * confirm is unknown, not signed out: the page goes ahead and answers 503 (getMember, databaseFaultMiddleware).
 */
export const middleware: Route.MiddlewareFunction[] = [
  databaseFaultMiddleware,
  async ({ url, context }, next) => {
    const { member, databaseUnavailable } = peekMember(context);
    if (member || databaseUnavailable) return next();
    redirectToSignIn(url);
  },
];

export default function MemberLayout() {
  return (
    <PageFrame>
      <Outlet />
    </PageFrame>
  );
}

export const ErrorBoundary = FramedErrorPage;
