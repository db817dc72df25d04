import type { ReactNode } from "react";
import { Form, NavLink } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { useRootData } from "./use-root-data";

// The spec's menu (users, downloads, CSV import), then the sibling services' deliveries and the audit log.
const ADMIN_LINKS = [
  { label: "users", route: "admin" },
  { label: "downloads", route: "admin-downloads" },
  { label: "csvImport", route: "admin-csv-import" },
  { label: "events", route: "admin-events" },
  { label: "auditLog", route: "admin-audit-log" },
] as const;

/**
 * The admin layout: the heading 管理画面 and links to the staff pages.
 * The heading is the page's h1, so each admin page titles itself with an h2.
 */
export function AdminShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation("admin");
  const { t: tStaff } = useTranslation("staffSession");
  const { locale } = useRootData();
  return (
    <div className="admin-shell">
      <header className="admin-shell__header">
        <h1 className="admin-shell__heading">{t("heading")}</h1>
        <nav aria-label={t("navLabel")}>
          <ul className="admin-shell__nav">
            {ADMIN_LINKS.map((link) => (
              <li key={link.label}>
                {/* end: "/admin/" is the user list, not a prefix of every admin page; a job's page is the CSV import's. */}
                <NavLink className="admin-shell__link" to={pathFor(link.route, locale)} end={link.route === "admin"}>
                  {t(link.label)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        {/* The staff area's sign-out ends the staff session and the member session (app/routes/default/admin-sign-in.tsx). */}
        <Form method="post" action={pathFor("admin-sign-in", locale)} className="admin-shell__sign-out">
          <button type="submit" name="intent" value="sign-out" className="admin-shell__link">
            {tStaff("signOut")}
          </button>
        </Form>
      </header>
      <div className="admin-shell__content">{children}</div>
    </div>
  );
}
