import iconv from "iconv-lite";
import { stringify } from "csv-stringify/sync";

/**
 * CSV files the staff open in Japanese Excel (docs/security.md, "Staff downloads and uploads"): RFC 4180 quoting,
 * formula cells escaped, UTF-8 with a BOM (Excel only recognises UTF-8 by its BOM) or Shift_JIS as Windows writes it
 * (CP932). Two writers, one per source: rows made in Node (the import's failed rows, the template) go through
 * csv-stringify (spreadsheetCsv); the database exports arrive as PostgreSQL's own CSV (COPY) and only get their formula
 * cells escaped and line ends set (spreadsheetCsvOfCopy), since turning a million rows into JavaScript values is what
 * made them slow. Either body is a pull-based web stream, so a download reads its source only as fast as the client
 * takes it.
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
 * source with `return()`; an error in the source errors the stream.
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

// ---- PostgreSQL's CSV, made Excel-safe ----

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const APOSTROPHE = 0x27;
const SAFE = 0;
const FORMULA = 1;
/** The block ends before the character can be told. */
const CUT = 2;

/**
 * Whether the cell text starting at `at` starts a formula: = + - @ TAB, CR and LF (only inside quotes: an unquoted
 * cell holds neither, so there they end an empty cell), ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20) in UTF-8, and
 * U+2212 MINUS SIGN, which the Shift_JIS variant turns into － (CP932_TWINS) after this pass has run.
 */
function formulaStartAt(bytes: Uint8Array, at: number, quoted: boolean): typeof SAFE | typeof FORMULA | typeof CUT {
  const byte = bytes[at]!;
  switch (byte) {
    case 0x3d:
    case 0x2b:
    case 0x2d:
    case 0x40:
    case TAB:
      return FORMULA;
    case CR:
    case LF:
      return quoted ? FORMULA : SAFE;
    case 0xef:
    case 0xe2: {
      if (at + 2 >= bytes.length) return CUT;
      const second = bytes[at + 1];
      const third = bytes[at + 2];
      const fullWidth =
        byte === 0xef && second === 0xbc && (third === 0x9d || third === 0x8b || third === 0x8d || third === 0xa0);
      return fullWidth || (byte === 0xe2 && second === 0x88 && third === 0x92) ? FORMULA : SAFE;
    }
    default:
      return SAFE;
  }
}

/** Outside quotes, the bytes that matter: a quote, a comma, a line feed (everything else is copied as it is). */
const STRUCTURAL_UNQUOTED = new Uint8Array(256);
STRUCTURAL_UNQUOTED[QUOTE] = STRUCTURAL_UNQUOTED[COMMA] = STRUCTURAL_UNQUOTED[LF] = 1;

const asBuffer = (bytes: Uint8Array) =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Makes PostgreSQL's CSV (COPY … WITH (FORMAT csv), UTF-8) what Excel should get, block by block: a `'` before
 * every cell that starts like a formula (formulaStartAt; inside the quotes when the cell is quoted,
 * so the quoting stays valid), and CRLF line ends (RFC 4180). It tracks only whether it is inside quotes and
 * whether a cell starts (a doubled quote inside a cell closes and reopens, so it needs no case of its own). This
 * runs over every byte of a file that may hold a million rows, and the export's rate beside COPY's depends on it:
 * quoted text is skipped with a native search for the closing quote, other bytes with one table look-up each, and
 * the bytes between insertions are copied natively.
 */
export class ExcelSafeCsvPass {
  /** Records (lines of the file, a header included) seen so far. */
  records = 0;
  private inQuotes = false;
  /** The next byte opens a cell (after a comma or a line end, or at the start). */
  private cellStarts = true;
  /** The next byte is the first of a quoted cell's text. */
  private quotedTextStarts = false;
  /** The start of a block held back: a cell's first character cut off by the block's end. */
  private heldBack: Uint8Array | undefined;
  /** Where a block's output is written (at most twice the block: one insertion before each byte). */
  private scratch = Buffer.alloc(0);

  /** The block with its insertions, minus a few bytes held for the next block when a cell's start is cut. */
  transform(input: Uint8Array): Uint8Array {
    const bytes = asBuffer(this.heldBack ? Buffer.concat([this.heldBack, input]) : input);
    this.heldBack = undefined;
    if (this.scratch.length < bytes.length * 2) this.scratch = Buffer.allocUnsafe(bytes.length * 2);
    const output = this.scratch;
    let { inQuotes, cellStarts, quotedTextStarts, records } = this;
    const length = bytes.length;
    let written = 0;
    let copiedTo = 0;
    let at = 0;
    while (at < length) {
      if (cellStarts || quotedTextStarts) {
        if (cellStarts && bytes[at] === QUOTE) {
          cellStarts = false;
          inQuotes = true;
          quotedTextStarts = true;
          at += 1;
          continue;
        }
        const start = formulaStartAt(bytes, at, quotedTextStarts);
        if (start === CUT) break;
        if (start === FORMULA) {
          written += bytes.copy(output, written, copiedTo, at);
          output[written++] = APOSTROPHE;
          copiedTo = at;
        }
        cellStarts = false;
        quotedTextStarts = false;
      }
      if (inQuotes) {
        const closing = bytes.indexOf(QUOTE, at);
        if (closing === -1) {
          at = length;
          break;
        }
        inQuotes = false;
        at = closing + 1;
        continue;
      }
      while (at < length && STRUCTURAL_UNQUOTED[bytes[at]!] === 0) at += 1;
      if (at === length) break;
      const byte = bytes[at];
      if (byte === QUOTE) inQuotes = true;
      else {
        cellStarts = true;
        if (byte === LF) {
          records += 1;
          written += bytes.copy(output, written, copiedTo, at);
          output[written++] = CR;
          copiedTo = at;
        }
      }
      at += 1;
    }
    written += bytes.copy(output, written, copiedTo, at);
    Object.assign(this, { inQuotes, cellStarts, quotedTextStarts, records });
    if (at < length) this.heldBack = Uint8Array.from(bytes.subarray(at));
    return Uint8Array.prototype.slice.call(output, 0, written);
  }

  /** What is left at the end of the file (nothing, unless the file ended inside a character). */
  flush(): Uint8Array {
    const rest = this.heldBack ?? new Uint8Array(0);
    this.heldBack = undefined;
    return rest;
  }
}

/** Turns the pass's UTF-8 into the download's encoding; `last` ends a character cut at a block's end. */
function encoderFor(encoding: CsvEncoding): (utf8: Uint8Array, last: boolean) => Uint8Array {
  if (encoding === "utf-8") return (utf8) => utf8;
  const decoder = new TextDecoder();
  return (utf8, last) => iconv.encode(toCp932Text(decoder.decode(utf8, { stream: !last })), CP932_ENCODING);
}

/**
 * A download body from PostgreSQL's CSV (db/client.server.ts `CsvCopy`): through ExcelSafeCsvPass, then in the
 * chosen encoding, the UTF-8 BOM first. Like spreadsheetCsv it pulls a block only when its reader asks
 * (highWaterMark 0), ends the source with `return()` when cancelled and errors when the source fails.
 */
export function spreadsheetCsvOfCopy(
  blocks: AsyncIterable<Uint8Array>,
  options: { encoding: CsvEncoding; pass?: ExcelSafeCsvPass },
): ReadableStream<Uint8Array> {
  const iterator = blocks[Symbol.asyncIterator]();
  const pass = options.pass ?? new ExcelSafeCsvPass();
  const encode = encoderFor(options.encoding);
  let prefix: Uint8Array | undefined = options.encoding === "utf-8" ? Buffer.from(UTF8_BOM) : undefined;
  let finished = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const next = await iterator.next();
          finished = next.done === true;
          let bytes = encode(next.done ? pass.flush() : pass.transform(next.value), finished);
          if (prefix) {
            bytes = Buffer.concat([prefix, bytes]);
            prefix = undefined;
          }
          if (bytes.length > 0) controller.enqueue(bytes);
          if (finished) return controller.close();
          if (bytes.length > 0) return;
        }
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
