import type { ReactNode } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { NavLink } from "react-router";
import { pathnameForLocale } from "~/i18n/locales";
import { useRootData } from "./use-root-data";

// Literal paths because the admin pages are not in the route table yet; these paths are fixed.
const ADMIN_LINKS = [
  { label: "users", path: "/admin/" },
  { label: "downloads", path: "/admin/downloads/" },
  { label: "csvImport", path: "/admin/csv-import/" },
] as const;

/**
 * The admin layout: the heading 管理画面 and links to the user list, downloads and CSV import.
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
                <NavLink className="admin-shell__link" to={pathnameForLocale(link.path, locale)} end>
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
