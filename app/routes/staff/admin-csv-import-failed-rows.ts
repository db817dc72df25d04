import { data } from "react-router";
import { z } from "zod";
import { failedRowsCsv } from "~/domain/csv-import/failed-rows.server";
import { getImportJobProgress } from "~/domain/csv-import/import-jobs.server";
import { CSV_CHARSETS, CSV_ENCODINGS, contentDisposition } from "~/domain/staff/spreadsheet-csv.server";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin-csv-import-failed-rows";

const JobIdSchema = z.uuid();
/** UTF-8 with a BOM unless the link asks for Shift_JIS (older Japanese Excel); anything else is the default. */
const EncodingSchema = z.enum(CSV_ENCODINGS).catch("utf-8");

/**
 * A job's failed rows with their reasons in the page's language: the admin API's file (the original columns, the
 * row, the reason's code and text; formulas escaped; streamed), for staff signed in with a cookie. It can be fixed
 * and uploaded again as it is.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const id = JobIdSchema.safeParse(params.id);
  if (!id.success) throw data(null, { status: 404 });
  const jobId = id.data.toLowerCase();
  const services = servicesOf(context);
  if (!(await getImportJobProgress(services.db, jobId))) throw data(null, { status: 404 });
  const encoding = EncodingSchema.parse(url.searchParams.get("encoding"));
  const t = getInstance(context).getFixedT(getLocale(context), "csvImport");
  const body = failedRowsCsv(services.db, jobId, { encoding, reasonText: (code) => t(`rowFailures.${code}`) });
  return new Response(body, {
    headers: {
      "Content-Type": `text/csv; charset=${CSV_CHARSETS[encoding]}`,
      "Content-Disposition": contentDisposition("import-failed-rows", services.clock.now()),
    },
  });
}
