import { z } from "zod";
import { storableText } from "~/domain/forms/field-schemas";
import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_MAX_FILE_BYTES,
  CSV_IMPORT_MAX_ROWS,
} from "~/domain/csv-import/csv-import-file.server";
import { CSV_ENCODINGS } from "~/domain/staff/spreadsheet-csv.server";
import type { ApiEndpoint } from "./endpoint";
import { CsvFile } from "./staff-api-contract";

/** The staff CSV import of new members (app/domain/csv-import/), on the staff API (access "admin"). */

const CsvImportQuery = z.object({
  dryRun: z.enum(["true", "false"], { error: "validation.inputError" }).optional().describe("true: validate only."),
  fileName: storableText().trim().max(200, "validation.tooLong").optional().describe("Shown to staff with the job."),
});
const CsvImportFailedRowsQuery = z.object({
  encoding: z.enum(CSV_ENCODINGS, { error: "validation.inputError" }).default("utf-8"),
  locale: z.enum(["ja", "en"], { error: "validation.inputError" }).optional().describe("The reasons' language."),
});
const CsvImportProblemSchema = z.object({
  row: z.int().nullable().describe("The row as Excel numbers it (the header is row 1); null: the whole file."),
  column: z.string().nullable(),
  code: z.string().describe("A stable code, e.g. invalidEmail, duplicateInFile, alreadyMember, formula."),
  value: z.string().nullable().describe("The offending value, cut short."),
  otherRow: z.int().optional().describe("duplicateInFile: the other row with the address."),
  message: z.string(),
});
const CsvImportReportSchema = z.object({
  fileName: z.string(),
  encoding: z.enum(CSV_ENCODINGS).nullable(),
  totalRows: z.int(),
  problemCount: z.int().describe("Every problem found; `problems` lists the first ones."),
  problems: z.array(CsvImportProblemSchema),
});
const CsvImportJobSchema = z.object({
  id: z.uuid(),
  state: z.enum(["validated", "queued", "running", "cancelled", "completed"]),
  fileName: z.string(),
  encoding: z.enum(CSV_ENCODINGS),
  totalRows: z.int(),
  createdBy: z.object({ sub: z.uuid(), email: z.string() }),
  createdAt: z.iso.datetime(),
  queuedAt: z.iso.datetime().nullable(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  counts: z.object({ created: z.int(), failed: z.int(), skipped: z.int(), pending: z.int(), inFlight: z.int() }),
  done: z.int(),
  remaining: z.int(),
  creationsPerSecond: z.number().nullable(),
  achievedPerSecond: z.number().nullable(),
  etaSeconds: z.int().nullable(),
});
const CsvImportAccepted = z.object({
  report: CsvImportReportSchema,
  job: CsvImportJobSchema.nullable().describe("The job, started; null for a dry run."),
});

export const CSV_IMPORT_API_ENDPOINTS = [
  {
    operationId: "adminCsvImportUserCreate",
    method: "post",
    path: "/api/admin/csv-import/user-create",
    access: "admin",
    query: CsvImportQuery,
    rawBody: {
      contentType: "text/csv",
      maxBytes: CSV_IMPORT_MAX_FILE_BYTES,
      description: `The members to create, as CSV (UTF-8 with or without BOM, or Shift_JIS/CP932): a header row of ${CSV_IMPORT_COLUMNS.join(", ")}, then at most ${CSV_IMPORT_MAX_ROWS} rows.`,
    },
    success: {
      status: 202,
      schema: CsvImportAccepted,
      repeat: { status: 200, description: "A dry run (`dryRun=true`): the file is clean; nothing is stored." },
    },
    errors: ["validation_failed", "payload_too_large", "reauthentication_required"],
  },
  {
    operationId: "adminCsvImportJob",
    method: "get",
    path: "/api/admin/csv-import/jobs/{id}",
    access: "admin",
    success: { status: 200, schema: CsvImportJobSchema },
    errors: ["not_found"],
  },
  {
    operationId: "adminCsvImportCancel",
    method: "post",
    path: "/api/admin/csv-import/jobs/{id}/cancel",
    access: "admin",
    success: { status: 200, schema: CsvImportJobSchema },
    errors: ["not_found"],
  },
  {
    operationId: "adminCsvImportFailedRows",
    method: "get",
    path: "/api/admin/csv-import/jobs/{id}/failed-rows.csv",
    access: "admin",
    query: CsvImportFailedRowsQuery,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: ["not_found"],
  },
] as const satisfies readonly ApiEndpoint[];
