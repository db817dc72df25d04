import { CSV_IMPORT_COLUMNS, type CsvImportColumn } from "~/domain/csv-import/csv-import-file.server";
import { contentDisposition, spreadsheetCsv } from "~/domain/staff/spreadsheet-csv.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin-csv-import-template";

/** One row that passes the dry run as it is, so staff see each column's form (codes, not labels). */
const EXAMPLE_ROW: Record<CsvImportColumn, string> = {
  email: "hanako.yamada@example.jp",
  family_name: "山田",
  given_name: "花子",
  birth_year: "1990",
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  organization: "山田設計事務所",
  preferred_language: "ja",
};

/**
 * The import's template: the header and one example row, UTF-8 with a BOM so that Japanese Excel opens it without
 * mojibake and saves it back in a form the import reads.
 */
export function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const body = spreadsheetCsv([CSV_IMPORT_COLUMNS.map((column) => EXAMPLE_ROW[column])], {
    header: CSV_IMPORT_COLUMNS,
    encoding: "utf-8",
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("member-import-template", servicesOf(context).clock.now()),
    },
  });
}
