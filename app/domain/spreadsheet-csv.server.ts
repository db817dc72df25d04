import iconv from "iconv-lite";
import { stringify } from "csv-stringify/sync";

/**
 * CSV files the staff open in Japanese Excel (SECURITY.md 19, research §4): RFC 4180 quoting, formula cells
 * escaped, UTF-8 with a BOM (Excel only recognises UTF-8 by its BOM) or Shift_JIS as Windows writes it (CP932).
 * The body is a pull-based web stream, so a download reads its source only as fast as the client takes it.
 */

export const CSV_ENCODINGS = ["utf-8", "shift_jis"] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

/**
 * A cell as the exports emit it. Strings are text (escaped when they could start a formula); numbers are for
 * values we compute ourselves (counts, years) and are written as plain numbers, never escaped, so Excel reads them
 * as numbers (a negative number is a number, not a formula); booleans are written "true"/"false"; null is empty.
 */
export type CsvCell = string | number | boolean | null;

/** The charset parameter of each encoding's Content-Type. */
export const CSV_CHARSETS: Record<CsvEncoding, string> = { "utf-8": "utf-8", shift_jis: "shift_jis" };

/** Rows stringified together: one csv-stringify call and one chunk of a few tens of KB for typical rows. */
const ROWS_PER_CHUNK = 256;

const UTF8_BOM = "\uFEFF";

/**
 * Characters CP932 lacks that have a CP932 twin: Unicode's JIS mapping and Microsoft's disagree on these (the wave
 * dash 〜 and the full-width tilde ～ are one JIS character), and Mac or web text often holds the JIS side.
 */
const CP932_TWINS: Readonly<Record<string, string>> = {
  "\u301C": "\uFF5E", // WAVE DASH → FULLWIDTH TILDE
  "\u2212": "\uFF0D", // MINUS SIGN → FULLWIDTH HYPHEN-MINUS
  "\u2016": "\u2225", // DOUBLE VERTICAL LINE → PARALLEL TO
  "\u2014": "\u2015", // EM DASH → HORIZONTAL BAR
  "\u00A2": "\uFFE0", // CENT SIGN → FULLWIDTH CENT SIGN
  "\u00A3": "\uFFE1", // POUND SIGN → FULLWIDTH POUND SIGN
  "\u00AC": "\uFFE2", // NOT SIGN → FULLWIDTH NOT SIGN
  "\u00A6": "\uFFE4", // BROKEN BAR → FULLWIDTH BROKEN BAR
  "\u00A0": " ", // NO-BREAK SPACE → SPACE
  "\u2011": "\u2010", // NON-BREAKING HYPHEN → HYPHEN
  "\u2013": "\u2010", // EN DASH → HYPHEN
  "\u00B7": "\u30FB", // MIDDLE DOT → KATAKANA MIDDLE DOT
};
const CP932_TWIN_PATTERN = new RegExp(`[${Object.keys(CP932_TWINS).join("")}]`, "g");

/**
 * What a character CP932 cannot hold becomes: the geta mark 〓, the customary "missing character" sign of Japanese
 * typesetting, so a lost character stays visible in the cell (iconv-lite's own fallback, "?", looks like data).
 */
export const CP932_REPLACEMENT = "\u3013";
const CP932_ENCODING = "cp932";
const NON_ASCII_PATTERN = /[\u0080-\u{10FFFF}]/gu;
/** Whether each non-ASCII character seen so far encodes; a file repeats the same few hundred characters. */
const cp932Encodable = new Map<string, boolean>();

function isCp932Encodable(char: string): boolean {
  let known = cp932Encodable.get(char);
  if (known === undefined) {
    // iconv-lite writes "?" for what it cannot encode; a non-ASCII character is never "?" itself.
    known = iconv.encode(char, CP932_ENCODING).toString("latin1") !== "?";
    cp932Encodable.set(char, known);
  }
  return known;
}

/** Text as CP932 can hold it: twins swapped, anything still unencodable replaced by 〓 (never silently dropped). */
export function toCp932Text(text: string): string {
  return text
    .replace(CP932_TWIN_PATTERN, (char) => CP932_TWINS[char] ?? char)
    .replace(NON_ASCII_PATTERN, (char) => (isCp932Encodable(char) ? char : CP932_REPLACEMENT));
}

/**
 * csv-stringify's `escape_formulas` prefixes `'` to cells starting with = + - @ TAB CR and the full-width ＝ ＋ － ＠;
 * OWASP also lists LF (and ASVS 1.2.10 NUL), which it misses: those get the same prefix here.
 */
function escapeUncoveredFormulaStart(text: string): string {
  return text.startsWith("\n") || text.startsWith("\0") ? `'${text}` : text;
}

function stringifyOptions(encoding: CsvEncoding) {
  // The CP932 twins are swapped before the formula check: "−1" (U+2212) becomes "－1", which Excel would evaluate.
  const prepareText = encoding === "shift_jis" ? toCp932Text : (text: string) => text;
  return {
    escape_formulas: true,
    eof: true,
    record_delimiter: "windows" as const,
    // Setting record_delimiter turns this off by default, and a cell holding a lone "\n" would then go unquoted.
    quote_record_delimiter: true,
    cast: {
      string: (value: string) => escapeUncoveredFormulaStart(prepareText(value)),
      boolean: (value: boolean) => String(value),
    },
  };
}

function encodeText(text: string, encoding: CsvEncoding): Uint8Array {
  // The text is already CP932-safe (toCp932Text ran in the cast), so iconv-lite never writes its "?".
  return encoding === "shift_jis" ? iconv.encode(text, CP932_ENCODING) : Buffer.from(text, "utf8");
}

export interface SpreadsheetCsvOptions {
  header?: readonly string[];
  encoding: CsvEncoding;
}

/**
 * A CSV body that pulls rows from `rows` only when its reader asks for the next chunk (highWaterMark 0: nothing
 * is read ahead), about ROWS_PER_CHUNK rows at a time. Cancelling the stream (the client went away) ends the
 * source with `return()`, which closes a database cursor behind it; an error in the source errors the stream.
 */
export function spreadsheetCsv(
  rows: AsyncIterable<readonly CsvCell[]> | Iterable<readonly CsvCell[]>,
  options: SpreadsheetCsvOptions,
): ReadableStream<Uint8Array> {
  const iterator: AsyncIterator<readonly CsvCell[]> | Iterator<readonly CsvCell[]> =
    Symbol.asyncIterator in rows ? rows[Symbol.asyncIterator]() : rows[Symbol.iterator]();
  const encodingOptions = stringifyOptions(options.encoding);
  // The BOM marks UTF-8 for Excel whether or not a header row follows; Shift_JIS has none.
  let pending =
    (options.encoding === "utf-8" ? UTF8_BOM : "") +
    (options.header ? stringify([options.header as string[]], encodingOptions) : "");
  let finished = false;

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const batch: (readonly CsvCell[])[] = [];
        while (batch.length < ROWS_PER_CHUNK) {
          const next = await iterator.next();
          if (next.done) {
            finished = true;
            break;
          }
          batch.push(next.value);
        }
        const text = pending + (batch.length > 0 ? stringify(batch as CsvCell[][], encodingOptions) : "");
        pending = "";
        if (text !== "") controller.enqueue(encodeText(text, options.encoding));
        if (finished) controller.close();
      },
      async cancel() {
        if (!finished) {
          finished = true;
          await iterator.return?.();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

const TOKYO_OFFSET_MS = 9 * 60 * 60 * 1000;

/**
 * A moment as Japan time in the form Excel reads as a date and time ("2026-11-22 23:15:00"). Japan has no daylight
 * saving time, so a fixed offset is exact, and it is much cheaper per row than Intl.
 */
export function formatJapanTime(moment: Date): string {
  return new Date(moment.getTime() + TOKYO_OFFSET_MS).toISOString().slice(0, 19).replace("T", " ");
}

/** RFC 5987 attr-char: what encodeURIComponent leaves alone, minus the characters RFC 5987 forbids unescaped. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A Content-Disposition value for a download named `<baseName>-<yyyymmdd>-<hhmm>.<extension>` in Japan time (the
 * staff's day): `filename` is an ASCII fallback (anything else becomes "_"), `filename*` the exact UTF-8 name
 * (RFC 6266 §4.3, RFC 5987).
 */
export function contentDisposition(baseName: string, now: Date, extension = "csv"): string {
  const stamp = formatJapanTime(now).slice(0, 16).replace(/[-:]/g, "").replace(" ", "-");
  const fileName = `${baseName}-${stamp}.${extension}`;
  const asciiFallback = fileName.replace(/[^\x20-\x7E]|["\\%]/g, "_");
  return `attachment; filename="${asciiFallback}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}
