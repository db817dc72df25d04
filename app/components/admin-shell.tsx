import type { ReactNode } from "react";
import { NavLink } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { useRootData } from "./use-root-data";

// The spec's fourth link (CSV import) comes with its page; linking it before would lead staff to a 404.
const ADMIN_LINKS = [
  { label: "users", route: "admin" },
  { label: "auditLog", route: "admin-audit-log" },
  { label: "downloads", route: "admin-downloads" },
] as const;

/**
 * The admin layout: the heading 管理画面 and links to the user list and the audit log.
 * The heading is the page's h1, so each admin page titles itself with an h2.
 */
export function AdminShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation("admin");
  const { locale } = useRootData();
  return (
    <div className="admin-shell">
      <header className="admin-shell__header">
        <h1 className="admin-shell__heading">{t("heading")}</h1>
        <nav aria-label={t("navLabel")}>
          <ul className="admin-shell__nav">
            {ADMIN_LINKS.map((link) => (
              <li key={link.label}>
                {/* end: "/admin/" is the user list, not a prefix of every admin page. */}
                <NavLink className="admin-shell__link" to={pathFor(link.route, locale)} end>
                  {t(link.label)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <div className="admin-shell__content">{children}</div>
    </div>
  );
}
