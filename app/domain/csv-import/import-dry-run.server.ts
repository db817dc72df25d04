import { and, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { csvImportJobs, csvImportRows, memberDirectory } from "~db/schema";
import {
  CSV_IMPORT_REPORT_MAX_PROBLEMS,
  type CsvImportProblem,
  type ImportFileEncoding,
  type ImportRow,
  readImportFile,
} from "./csv-import-file.server";
import type { StaffActor } from "../staff/staff-audit-log.server";

/** The dry run's answer, easy to render: totals, then the problems in file order (at most the cap, with the total). */
export interface ImportDryRunReport {
  fileName: string;
  encoding: ImportFileEncoding | null;
  /** Data rows found (the header and blank rows not counted). */
  totalRows: number;
  /** All problems found; `problems` holds the first CSV_IMPORT_REPORT_MAX_PROBLEMS of them. */
  problemCount: number;
  problems: CsvImportProblem[];
}

export type ImportValidation =
  /** The file has problems: nothing is stored; staff fix the file and upload it again. */
  | { kind: "refused"; report: ImportDryRunReport }
  /** Clean. With `store`, the job waits in `validated` for "start" (no second upload); `jobId` is null without. */
  | { kind: "clean"; report: ImportDryRunReport; jobId: string | null };

/** Rows per statement when storing a job, and per batch of the mirror check (well below PostgreSQL's 65,535 parameters). */
const INSERT_BATCH_ROWS = 1_000;

async function findExistingMembers(db: Database, emails: string[]): Promise<Set<string>> {
  const existing = new Set<string>();
  for (let start = 0; start < emails.length; start += INSERT_BATCH_ROWS) {
    const batch = emails.slice(start, start + INSERT_BATCH_ROWS);
    const rows = await db
      .select({ email: memberDirectory.emailKey })
      .from(memberDirectory)
      // collate "C": the form member_directory_email_key_idx is built on, so the index serves the lookup.
      .where(
        and(inArray(sql`${memberDirectory.emailKey} collate "C"`, batch), isNull(memberDirectory.missingFromCognitoAt)),
      );
    for (const row of rows) if (row.email) existing.add(row.email);
  }
  return existing;
}

/**
 * The dry run: reads the file, checks every row (the file's own rules, then the addresses against the member
 * directory, case-insensitively), and reports every problem. A clean file is stored as a job in `validated` when
 * `store` is set (the staff page), so that starting it needs no second upload; a file with problems is stored nowhere.
 */
export async function validateImport(
  deps: { db: Database },
  input: { bytes: Uint8Array; fileName: string; actor: StaffActor; requestId: string; store: boolean },
): Promise<ImportValidation> {
  const reading = await readImportFile(input.bytes);
  const existing = await findExistingMembers(
    deps.db,
    reading.rows.map((row) => row.values.email),
  );
  const memberProblems: CsvImportProblem[] = reading.rows
    .filter((row) => existing.has(row.values.email))
    .map((row) => ({ row: row.rowNumber, column: "email", code: "alreadyMember", value: row.values.email }));
  const problems = [...reading.problems, ...memberProblems].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  const report: ImportDryRunReport = {
    fileName: input.fileName,
    encoding: reading.encoding,
    totalRows: reading.totalRows,
    problemCount: problems.length,
    problems: problems.slice(0, CSV_IMPORT_REPORT_MAX_PROBLEMS),
  };
  if (problems.length > 0 || !reading.encoding) return { kind: "refused", report };
  if (!input.store) return { kind: "clean", report, jobId: null };
  const jobId = await storeJob(deps.db, input, reading.encoding, reading.rows);
  return { kind: "clean", report, jobId };
}

async function storeJob(
  db: Database,
  input: { fileName: string; actor: StaffActor; requestId: string },
  encoding: ImportFileEncoding,
  rows: ImportRow[],
): Promise<string> {
  return db.transaction(async (tx) => {
    const [job] = await tx
      .insert(csvImportJobs)
      .values({
        fileName: input.fileName,
        encoding,
        createdBySub: input.actor.sub,
        createdByEmail: input.actor.email,
        requestId: input.requestId,
        totalRows: rows.length,
      })
      .returning({ id: csvImportJobs.id });
    for (let start = 0; start < rows.length; start += INSERT_BATCH_ROWS)
      await tx.insert(csvImportRows).values(
        rows.slice(start, start + INSERT_BATCH_ROWS).map((row) => ({
          jobId: job!.id,
          rowNumber: row.rowNumber,
          values: row.values,
        })),
      );
    return job!.id;
  });
}
