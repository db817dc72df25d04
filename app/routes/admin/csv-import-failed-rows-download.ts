import { data } from "react-router";
import { z } from "zod";
import { failedRowCells, getImportJobProgress } from "~/domain/csv-import-job.server";
import { contentDisposition, spreadsheetCsv } from "~/domain/spreadsheet-csv.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { servicesOf } from "~/services.server";
import type { Route } from "./+types/csv-import-failed-rows-download";

const JobIdSchema = z.uuid();

/**
 * A job's failed rows (the original columns, the row, the reason's code and its text in the page's language), UTF-8
 * with a BOM and formulas escaped, streamed batch by batch: the admin API's file, for staff signed in with a cookie.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  requireAdmin(context, request);
  const id = JobIdSchema.safeParse(params.id);
  if (!id.success) throw data(null, { status: 404 });
  const services = servicesOf(context);
  const jobId = id.data.toLowerCase();
  if (!(await getImportJobProgress(services.db, jobId))) throw data(null, { status: 404 });
  const t = getInstance(context).getFixedT(getLocale(context), "csvImport");
  const body = spreadsheetCsv(
    failedRowCells(services.db, jobId, (code) => t(`rowFailures.${code}`)),
    { encoding: "utf-8" },
  );
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("member-import-failed-rows", services.clock.now()),
    },
  });
}
