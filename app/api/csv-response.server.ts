import type { CsvDownload } from "~/domain/staff/member-export.server";
import { CSV_CHARSETS, contentDisposition } from "~/domain/staff/spreadsheet-csv.server";

/**
 * A download as the browser and API callers get it, from the staff pages' resource routes and the admin API alike:
 * an attachment named with the date and time, never stored by a cache (staff data), and `no-transform` so that no
 * proxy or compression holds the stream back (app/server/write-body.ts). nosniff comes with every answer.
 */
export function csvDownloadResponse(
  // Any named CSV body: the exports' (CsvDownload) and the CSV import's failed rows.
  download: Pick<CsvDownload, "body" | "encoding"> & { baseName: string },
  now: Date,
): Response {
  return new Response(download.body, {
    status: 200,
    headers: {
      "Content-Type": `text/csv; charset=${CSV_CHARSETS[download.encoding]}`,
      "Content-Disposition": contentDisposition(download.baseName, now),
      "Cache-Control": "no-store, no-transform",
    },
  });
}
