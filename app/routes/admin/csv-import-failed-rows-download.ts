import { data } from "react-router";
import { z } from "zod";
import { failedRowsCsv } from "~/domain/csv-import-job.server";
import { contentDisposition } from "~/domain/spreadsheet-csv.server";
import { getLocale } from "~/middleware/i18n.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { servicesOf } from "~/services.server";
import type { Route } from "./+types/csv-import-failed-rows-download";

const JobIdSchema = z.uuid();

/**
 * A job's failed rows with their reasons in the page's language, as the engine writes them (UTF-8 with a BOM,
 * formulas escaped), streamed: the same file as the admin API's, for staff signed in with a cookie.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  requireAdmin(context, request);
  const id = JobIdSchema.safeParse(params.id);
  if (!id.success) throw data(null, { status: 404 });
  const services = servicesOf(context);
  const body = await failedRowsCsv(services, id.data.toLowerCase(), getLocale(context));
  if (!body) throw data(null, { status: 404 });
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("member-import-failed-rows", services.clock.now()),
    },
  });
}
