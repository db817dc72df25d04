import { AppLink } from "~/components/app-link";
import { CsvColumnsTable } from "~/components/admin/csv-columns-table";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { DOCUMENT_PAGE } from "~/routing/document-page";
import { pathFor } from "~/routing/route-table";
import type { Route } from "./+types/admin-csv-import-columns";
import { describeImportColumns } from "./admin-csv-import.server";

/** The page's heading, lead and links, and the table's own (its rows come made). */
const COLUMNS_PAGE_TEXTS = [
  {
    namespace: "adminImport",
    keys: [
      ...["meta.columns", "columnsPage", "job.back"],
      ...["upload.template", "upload.columnsCaption", "upload.columns", "upload.values.showCodes"],
    ],
  },
] as const;

/**
 * The columns an import file's header must have and the values each accepts, with the profile form's codes and their
 * labels in the page's language: a reference to read, so a document page without scripts.
 */
export function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const locale = getLocale(context);
  const t = getInstance(context).getFixedT(locale, ["adminImport", "signUp"]);
  return {
    title: t("adminImport:meta.columns"),
    columns: describeImportColumns(t, locale),
    translations: loadTranslations(context, COLUMNS_PAGE_TEXTS),
  };
}

export default function CsvImportColumnsPage({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("adminImport");
  return (
    <section className="admin-section" aria-labelledby="csv-columns-title">
      <p>
        <AppLink to={pathFor("admin-csv-import", i18n.language)}>{t("job.back")}</AppLink>
      </p>
      <h2 id="csv-columns-title">{t("meta.columns")}</h2>
      <p>{t("columnsPage.lead")}</p>
      <p>
        {/* A download, not a page: the browser must fetch it itself, with or without JavaScript. */}
        <AppLink to={pathFor("admin-csv-import-template", i18n.language)} reloadDocument>
          {t("upload.template")}
        </AppLink>
      </p>
      <CsvColumnsTable columns={loaderData.columns} />
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export const handle = DOCUMENT_PAGE;
