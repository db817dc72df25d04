import { Outlet, redirect } from "react-router";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { localeFromPathname, pathnameForLocale } from "~/i18n/locales";
import { getMember } from "~/middleware/member-session.server";
import { routeNameForPathname } from "~/routing/route-table";
import type { Route } from "./+types/member-layout";

/**
 * Every `my-*` page needs a signed-in member; anyone else goes to sign-in with `to=<route name>` and comes
 * back after signing in. Middleware, so client-side navigations are guarded too.
 */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, context }, next) => {
    if (getMember(context)) return next();
    const { pathname } = new URL(request.url);
    const signIn = pathnameForLocale("/auth/sign-in/", localeFromPathname(pathname));
    const name = routeNameForPathname(pathname);
    throw redirect(name ? `${signIn}?to=${encodeURIComponent(name)}` : signIn);
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
