import { and, asc, eq, gt } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { csvImportRows } from "~db/schema";
import { CSV_IMPORT_COLUMNS, FAILED_ROWS_EXTRA_COLUMNS, type ImportRowValues } from "./csv-import-file.server";
import type { ImportRowFailureCode } from "./import-jobs.server";
import { type CsvEncoding, spreadsheetCsv } from "../staff/spreadsheet-csv.server";

export interface FailedImportRow {
  rowNumber: number;
  values: ImportRowValues;
  failureCode: ImportRowFailureCode;
}

/** Failed rows per read of the failed-rows download: the file is streamed in batches, never held whole. */
const FAILED_ROWS_BATCH = 500;

/** The job's failed rows in file order, batch by batch (keyset on the row number). */
export async function* readFailedRows(db: Database, jobId: string): AsyncGenerator<FailedImportRow[]> {
  let after = 0;
  for (;;) {
    const batch = await db
      .select({
        rowNumber: csvImportRows.rowNumber,
        values: csvImportRows.values,
        failureCode: csvImportRows.failureCode,
      })
      .from(csvImportRows)
      .where(and(eq(csvImportRows.jobId, jobId), eq(csvImportRows.state, "failed"), gt(csvImportRows.rowNumber, after)))
      .orderBy(asc(csvImportRows.rowNumber))
      .limit(FAILED_ROWS_BATCH);
    if (batch.length === 0) return;
    yield batch.map((row) => ({
      rowNumber: row.rowNumber,
      values: row.values as ImportRowValues,
      failureCode: row.failureCode as ImportRowFailureCode,
    }));
    after = batch.at(-1)!.rowNumber;
  }
}

/** The CSV columns of a failed row, in the header's order: the original values, then where and why it failed. */
export async function* failedRowCells(
  db: Database,
  jobId: string,
  reasonText: (code: ImportRowFailureCode) => string,
): AsyncGenerator<string[]> {
  const header = [...CSV_IMPORT_COLUMNS, ...FAILED_ROWS_EXTRA_COLUMNS];
  yield header;
  for await (const batch of readFailedRows(db, jobId))
    for (const row of batch) {
      const v = row.values;
      yield [
        v.email,
        v.familyName,
        v.givenName,
        String(v.birthYear),
        v.country,
        v.prefecture,
        v.occupation,
        v.organization,
        v.preferredLanguage,
        String(row.rowNumber),
        row.failureCode,
        reasonText(row.failureCode),
      ];
    }
}

/**
 * The failed-rows download: the original columns, the row it came from, the reason's code and its text in the
 * staff's language. Streamed (spreadsheet-csv.server.ts: formula-safe, UTF-8 with BOM or CP932), read in batches.
 */
export function failedRowsCsv(
  db: Database,
  jobId: string,
  options: { encoding: CsvEncoding; reasonText: (code: ImportRowFailureCode) => string },
): ReadableStream<Uint8Array> {
  return spreadsheetCsv(failedRowCells(db, jobId, options.reasonText), { encoding: options.encoding });
}
