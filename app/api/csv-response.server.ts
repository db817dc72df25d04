import type { CsvDownload } from "~/domain/staff/member-export.server";
import { CSV_CHARSETS, contentDisposition } from "~/domain/staff/spreadsheet-csv.server";

/**
 * A download as the browser and API callers get it, from the pages' resource routes and the admin API alike: an
 * attachment named with the date and time, never stored by a cache (staff data), and `no-transform` so that no
 * proxy or compression (the HTTP layer's honours it) holds the stream back. nosniff comes with every answer.
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
