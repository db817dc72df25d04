import { Outlet } from "react-router";
import { AdminShell } from "~/components/admin-shell";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { loadTranslations } from "~/i18n/translations.server";
import { databaseFaultMiddleware } from "~/middleware/database-fault.server";
import { readStaffStanding, redirectUnlessStaffSession, requireAdmin } from "~/middleware/require-member.server";
import { staffSessionMiddleware } from "~/middleware/staff-session.server";
import type { Route } from "./+types/staff-layout";

/**
 * The staff pages, behind a staff session of their own (app/middleware/staff-session.server.ts): the middleware
 * sends whoever has none to the staff sign-in (on client navigations too); the 403 for a member outside the admin group comes from the loaders, so the localized error page still has the root's data.
 * Each page's loader and action calls requireAdmin itself as well: loaders run in parallel, and a page's data must
 * never reach a non-admin because only the layout refused.
 */
export const middleware: Route.MiddlewareFunction[] = [
  databaseFaultMiddleware,
  staffSessionMiddleware,
  async ({ url, context }, next) => {
    redirectUnlessStaffSession(context, url);
    await readStaffStanding(context);
    return next();
  },
];

/** The staff shell's heading and menu; each page's loader sends its own texts (the root translates toasts). */
const STAFF_SHELL_TEXTS = [
  { namespace: "admin", keys: ["heading", "navLabel", "users", "downloads", "csvImport", "events", "auditLog"] },
  { namespace: "staffSession", keys: ["signOut"] },
] as const;

export function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  return { translations: loadTranslations(context, STAFF_SHELL_TEXTS) };
}

export default function AdminLayout() {
  return (
    <PageFrame>
      <AdminShell>
        <Outlet />
      </AdminShell>
    </PageFrame>
  );
}

export const ErrorBoundary = FramedErrorPage;
