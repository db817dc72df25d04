import { useTranslation } from "~/i18n/use-translation";
import { AppLink } from "../app-link";

type PageLink = { to: string; text: string } | null;

/** The "admin" texts PageLinks shows, for the key list of every page that uses it (loadTranslations). */
export const PAGE_LINKS_TEXT_KEYS = ["list.pagination"] as const;

/** Keyset paging: a link to the page before and the page after, where there is one; no page numbers. */
export function PageLinks({ previous, next }: { previous: PageLink; next: PageLink }) {
  const { t } = useTranslation("admin");
  if (!previous && !next) return null;
  return (
    <nav aria-label={t("list.pagination")} className="admin-pagination">
      {previous ? (
        <AppLink to={previous.to} rel="prev">
          {previous.text}
        </AppLink>
      ) : null}
      {next ? (
        <AppLink to={next.to} rel="next">
          {next.text}
        </AppLink>
      ) : null}
    </nav>
  );
}
