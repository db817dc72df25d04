import { Readable } from "node:stream";
import { type CsvError, type Info, parse } from "csv-parse";
import iconv from "iconv-lite";
import { z } from "zod";
import { EmailSchema } from "../forms/field-schemas";
import { ProfileSchema } from "../forms/profile-schemas";
import type { CsvEncoding } from "../staff/spreadsheet-csv.server";

/**
 * The staff's import file, from bytes to validated rows (no database here: the check against the member directory
 * is import-dry-run.server.ts, the job import-jobs.server.ts). Every problem is reported by the row staff see in
 * Excel (the header is row 1) and the column's name, with a stable code translated in the csv-import namespace.
 */

/** A file above this is refused unread: 20,000 rows of nine profile columns stay far below it even in UTF-8. */
export const CSV_IMPORT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/**
 * Rows per file (the header not counted). At the default 40 creations a second this is about 8½ minutes of work;
 * bigger lists are split, so that a mistake found in a dry run is cheap to fix and one job never holds the quota
 * for long.
 */
export const CSV_IMPORT_MAX_ROWS = 20_000;
/** The report names at most this many problems (the total is always given): a broken file must not make a huge page. */
export const CSV_IMPORT_REPORT_MAX_PROBLEMS = 500;
/** An offending value is shown cut to this many characters. */
export const CSV_IMPORT_PROBLEM_VALUE_MAX_CHARS = 60;

/**
 * The header, in this order in the template (any order is accepted). Every column is required, and every cell too:
 * an imported member's profile must be as complete as one made by sign-up, or the member's own profile form would
 * refuse to save until they filled the gaps. Values are the profile form's codes (country ISO codes from COUNTRIES,
 * occupation codes from OCCUPATIONS, preferred_language ja or en), so what staff type is what the form would store.
 */
export const CSV_IMPORT_COLUMNS = [
  "email",
  "family_name",
  "given_name",
  "birth_year",
  "country",
  "prefecture",
  "occupation",
  "organization",
  "preferred_language",
] as const;
export type CsvImportColumn = (typeof CSV_IMPORT_COLUMNS)[number];

/**
 * The failed-rows download's columns after the original ones (failed-rows.server.ts writes them). A file that has
 * them is read with them ignored, so staff can fix the failed rows in that file and upload it as it is.
 */
export const FAILED_ROWS_EXTRA_COLUMNS = ["source_row", "failure_code", "failure_reason"] as const;

/** How the bytes were read: UTF-8 (with or without BOM), or Shift_JIS as Windows writes it (CP932). */
export type ImportFileEncoding = CsvEncoding;

/** Stable codes; their texts are csv-import:problems.<code>. */
export type CsvImportProblemCode =
  // the file as a whole (row null)
  | "fileTooLarge"
  | "emptyFile"
  | "tooManyRows"
  | "missingColumn"
  | "unknownColumn"
  | "repeatedColumn"
  // one row
  | "badQuoting"
  | "cellCount"
  | "formula"
  | "required"
  | "tooLong"
  | "invalidCharacters"
  | "invalidEmail"
  | "invalidBirthYear"
  | "invalidChoice"
  | "duplicateInFile"
  | "alreadyMember";

export interface CsvImportProblem {
  /** The row in Excel (header = 1); null for a problem of the whole file. */
  row: number | null;
  /** The column's name as the header has it; null when the problem is the row's or the file's. */
  column: string | null;
  code: CsvImportProblemCode;
  /** The offending value, cut to CSV_IMPORT_PROBLEM_VALUE_MAX_CHARS; null when there is none to show. */
  value: string | null;
  /** duplicateInFile: the other row with the same address (each of the two names the other). */
  otherRow?: number;
}

/**
 * The values a problem's text (csv-import:problems.<code>) interpolates: the other row of a duplicate, the caps,
 * the rows found. Pages and the API translate with the same values.
 */
export function problemMessageValues(problem: CsvImportProblem): Record<string, string> {
  return {
    otherRow: String(problem.otherRow ?? ""),
    maxRows: CSV_IMPORT_MAX_ROWS.toLocaleString("en"),
    maxMegabytes: String(CSV_IMPORT_MAX_FILE_BYTES / (1024 * 1024)),
  };
}

/** One row as it will be created: the e-mail (lower-cased, as Cognito matches it) and the profile form's values. */
export type ImportRowValues = { email: string } & z.infer<typeof ProfileSchema>;

export interface ImportRow {
  /** The row in Excel (header = 1). */
  rowNumber: number;
  values: ImportRowValues;
}

export interface ImportFileReading {
  encoding: ImportFileEncoding | null;
  /** Data rows found (blank rows not counted). */
  totalRows: number;
  /** The rows that passed every check of the file itself. */
  rows: ImportRow[];
  /** Every problem found, in file order (the whole file's first). */
  problems: CsvImportProblem[];
}

const UTF8_STRICT = new TextDecoder("utf-8", { fatal: true });

/**
 * Valid UTF-8 is read as UTF-8 (a BOM, which Excel's "CSV UTF-8" writes, is dropped); anything else as CP932, which
 * Japanese Excel's plain "CSV" writes. Shift_JIS text is almost never valid UTF-8 (its lead bytes 0x81–0x9F and
 * 0xE0–0xFC followed by ASCII-range trail bytes break UTF-8's sequences), so the check decides reliably; a pure-ASCII
 * file reads the same either way.
 */
export function decodeImportBytes(bytes: Uint8Array): { text: string; encoding: ImportFileEncoding } {
  try {
    return { text: UTF8_STRICT.decode(bytes), encoding: "utf-8" };
  } catch {
    return {
      text: iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "cp932"),
      encoding: "shift_jis",
    };
  }
}

/**
 * What Excel (and LibreOffice) would run as a formula, or what injects a new cell: the characters OWASP lists,
 * and the full-width forms Japanese Excel also treats as formulas. Such a value is refused rather than stored:
 * it would come back in every export and in Cognito's invitation mail. Tested on the value as stored: the schemas
 * trim it (String.prototype.trim: every Unicode space, NBSP and U+FEFF included), so a formula behind any of them
 * would be stored bare. A value that starts with TAB, CR or LF is refused before trimming too.
 */
const FORMULA_START = /^[=+\-@\t\r\n＝＋－＠]/u;
const isFormula = (cell: string) => FORMULA_START.test(cell) || FORMULA_START.test(cell.trim());

const cut = (value: string) =>
  value.length > CSV_IMPORT_PROBLEM_VALUE_MAX_CHARS ? `${value.slice(0, CSV_IMPORT_PROBLEM_VALUE_MAX_CHARS)}…` : value;

/** ProfileSchema's message keys (app/domain/forms/profile-schemas.ts) as this report's codes. */
const PROFILE_MESSAGE_CODES: Record<string, CsvImportProblemCode> = {
  "validation.required": "required",
  "validation.tooLong": "tooLong",
  "validation.invalidCharacters": "invalidCharacters",
  "validation.birthYear": "invalidBirthYear",
  "validation.selectRequired": "invalidChoice",
  "validation.selectError": "invalidChoice",
  "validation.email": "invalidEmail",
};

/** The CSV columns as the schema's keys: one schema checks the row, with the sign-up form's own rules. */
const COLUMN_KEYS = {
  email: "email",
  family_name: "familyName",
  given_name: "givenName",
  birth_year: "birthYear",
  country: "country",
  prefecture: "prefecture",
  occupation: "occupation",
  organization: "organization",
  preferred_language: "preferredLanguage",
} as const satisfies Record<CsvImportColumn, keyof ImportRowValues>;
const KEY_COLUMNS = Object.fromEntries(Object.entries(COLUMN_KEYS).map(([column, key]) => [key, column])) as Record<
  keyof ImportRowValues,
  CsvImportColumn
>;

const ImportRowSchema = ProfileSchema.extend({ email: EmailSchema });

/** The header's columns by position; null for a column whose cells are ignored (the failed-rows download's extras). */
function readHeader(cells: string[]): { columns: (CsvImportColumn | null)[]; problems: CsvImportProblem[] } {
  const problems: CsvImportProblem[] = [];
  const seen = new Set<string>();
  const columns = cells.map((cell) => {
    const name = cell.trim().toLowerCase();
    if ((FAILED_ROWS_EXTRA_COLUMNS as readonly string[]).includes(name)) return null;
    if (!(CSV_IMPORT_COLUMNS as readonly string[]).includes(name)) {
      problems.push({ row: 1, column: cut(cell), code: "unknownColumn", value: null });
      return null;
    }
    if (seen.has(name)) problems.push({ row: 1, column: name, code: "repeatedColumn", value: null });
    seen.add(name);
    return name as CsvImportColumn;
  });
  for (const column of CSV_IMPORT_COLUMNS)
    if (!seen.has(column)) problems.push({ row: 1, column, code: "missingColumn", value: null });
  return { columns, problems };
}

function checkRow(
  rowNumber: number,
  cells: string[],
  columns: (CsvImportColumn | null)[],
): { values: ImportRowValues | null; problems: CsvImportProblem[] } {
  if (cells.length !== columns.length)
    return {
      values: null,
      problems: [{ row: rowNumber, column: null, code: "cellCount", value: String(cells.length) }],
    };
  const problems: CsvImportProblem[] = [];
  const record: Record<string, string> = {};
  cells.forEach((cell, index) => {
    const column = columns[index];
    if (!column) return;
    if (isFormula(cell)) problems.push({ row: rowNumber, column, code: "formula", value: cut(cell) });
    else if (cell.trim() === "") problems.push({ row: rowNumber, column, code: "required", value: null });
    record[COLUMN_KEYS[column]] = cell;
  });
  const parsed = ImportRowSchema.safeParse(record);
  if (parsed.success && problems.length === 0) return { values: parsed.data, problems };
  const reported = new Set(problems.map((problem) => problem.column));
  for (const issue of parsed.error?.issues ?? []) {
    const column = KEY_COLUMNS[issue.path[0] as keyof ImportRowValues];
    // One problem per cell: the first the schema finds, unless the cell was already refused above.
    if (reported.has(column)) continue;
    reported.add(column);
    const code = PROFILE_MESSAGE_CODES[issue.message] ?? (column === "email" ? "invalidEmail" : "invalidChoice");
    problems.push({ row: rowNumber, column, code, value: cut(record[COLUMN_KEYS[column]] ?? "") });
  }
  return { values: null, problems };
}

/** Two rows with one address: each names the other (the first names the first repeat). */
function findDuplicates(rows: ImportRow[]): CsvImportProblem[] {
  const firstRowOf = new Map<string, number>();
  const problems: CsvImportProblem[] = [];
  const namedFirst = new Set<number>();
  for (const { rowNumber, values } of rows) {
    const first = firstRowOf.get(values.email);
    if (first === undefined) {
      firstRowOf.set(values.email, rowNumber);
      continue;
    }
    if (!namedFirst.has(first)) {
      namedFirst.add(first);
      problems.push({
        row: first,
        column: "email",
        code: "duplicateInFile",
        value: cut(values.email),
        otherRow: rowNumber,
      });
    }
    problems.push({
      row: rowNumber,
      column: "email",
      code: "duplicateInFile",
      value: cut(values.email),
      otherRow: first,
    });
  }
  return problems;
}

const byRow = (a: CsvImportProblem, b: CsvImportProblem) => (a.row ?? 0) - (b.row ?? 0);

/** A row Excel writes for an empty line: no cell holds anything. */
const isBlank = (cells: string[]) => cells.every((cell) => cell.trim() === "");

/** The decoded text is handed to the parser in pieces this size, so that it parses only as far as it is read. */
const PARSE_CHUNK_CHARS = 64 * 1024;

function* pieces(text: string) {
  for (let start = 0; start < text.length; start += PARSE_CHUNK_CHARS)
    yield text.slice(start, start + PARSE_CHUNK_CHARS);
}

/** A record and its row in Excel, where an empty line (skipped here) is a row too; csv-parse counts from 1. */
const excelRowOf = (info: Pick<Info, "records" | "empty_lines">) => Number(info.records) + Number(info.empty_lines);

/**
 * The file's records as a stream, up to the header and CSV_IMPORT_MAX_ROWS + 1 data rows that are not blank:
 * reading stops there, so a file over the cap is never parsed whole. Empty lines are skipped (neither rows nor
 * counted towards the cap). A broken quote makes every later line ambiguous, so reading stops there too and says so.
 */
async function readRecords(text: string) {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    // A quote inside an unquoted cell (5'10") is taken as it is; an opened quote that never closes still stops reading.
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
  });
  // The parser may report the broken record before the records ahead of it have been read from it.
  let badQuotingRow: number | null = null;
  parser.on("skip", (error: CsvError) => (badQuotingRow ??= excelRowOf(error as unknown as Info) + 1));
  const source = Readable.from(pieces(text), { objectMode: false });
  source.pipe(parser);
  const records: { record: string[]; row: number }[] = [];
  let dataRows = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      if (badQuotingRow !== null && excelRowOf(info) >= badQuotingRow) break;
      records.push({ record, row: excelRowOf(info) });
      if (records.length > 1 && !isBlank(record) && ++dataRows > CSV_IMPORT_MAX_ROWS) break;
    }
  } finally {
    source.destroy();
    parser.destroy();
  }
  return { records, badQuotingRow: badQuotingRow as number | null };
}

/**
 * Reads and checks the file. Rows with problems are left out of `rows`; a file with any problem must not be
 * imported (the caller decides), but every problem is reported at once so staff fix the file in one go.
 */
export async function readImportFile(bytes: Uint8Array): Promise<ImportFileReading> {
  if (bytes.byteLength > CSV_IMPORT_MAX_FILE_BYTES)
    return {
      encoding: null,
      totalRows: 0,
      rows: [],
      problems: [{ row: null, column: null, code: "fileTooLarge", value: null }],
    };
  const { text, encoding } = decodeImportBytes(bytes);
  const { records, badQuotingRow } = await readRecords(text);
  const [header, ...body] = records;
  if (!header || isBlank(header.record))
    return {
      encoding,
      totalRows: 0,
      rows: [],
      problems: [{ row: null, column: null, code: "emptyFile", value: null }],
    };

  const dataRows = body.filter(({ record }) => !isBlank(record));
  const problems: CsvImportProblem[] = [];
  if (dataRows.length > CSV_IMPORT_MAX_ROWS)
    return {
      encoding,
      totalRows: dataRows.length,
      rows: [],
      problems: [{ row: null, column: null, code: "tooManyRows", value: null }],
    };
  const { columns, problems: headerProblems } = readHeader(header.record);
  problems.push(...headerProblems);
  if (badQuotingRow !== null) problems.push({ row: badQuotingRow, column: null, code: "badQuoting", value: null });
  if (headerProblems.length > 0) return { encoding, totalRows: dataRows.length, rows: [], problems };

  const rows: ImportRow[] = [];
  const rowProblems: CsvImportProblem[] = [];
  for (const { record, row } of dataRows) {
    const checked = checkRow(row, record, columns);
    rowProblems.push(...checked.problems);
    if (checked.values) rows.push({ rowNumber: row, values: checked.values });
  }
  rowProblems.push(...findDuplicates(rows));
  const duplicateRows = new Set(rowProblems.filter((p) => p.code === "duplicateInFile").map((p) => p.row));
  problems.push(...rowProblems.sort(byRow));
  return {
    encoding,
    totalRows: dataRows.length + (badQuotingRow !== null ? 1 : 0),
    rows: rows.filter((row) => !duplicateRows.has(row.rowNumber)),
    problems,
  };
}
