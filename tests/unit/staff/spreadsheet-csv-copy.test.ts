import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import iconv from "iconv-lite";
import { expect, test } from "vitest";
import {
  type CsvEncoding,
  ExcelSafeCsvPass,
  spreadsheetCsv,
  spreadsheetCsvOfCopy,
} from "~/domain/staff/spreadsheet-csv.server";

/**
 * The exports' path: PostgreSQL's CSV (COPY … WITH (FORMAT csv): quoted only where needed, LF line ends), made
 * Excel-safe in Node. csv-stringify's defaults write the same form, so they stand in for PostgreSQL here.
 */
const HOSTILE_CELLS = [
  "=cmd|' /C calc'!A0",
  "+1",
  "-1",
  "@SUM(1)",
  "\tx",
  "\ry",
  "\nz",
  "＝cmd",
  "＋1",
  "－1",
  "＠x",
  "−1",
  '"=quoted"',
  "=a,b",
  "plain",
  "山田",
  "〜花子",
  "",
  "a=b",
];
const copyCsvOf = (rows: string[][]) => Buffer.from(stringify(rows), "utf8");

async function* blocksOf(bytes: Uint8Array, splits: number[]) {
  let from = 0;
  for (const at of [...splits, bytes.length]) {
    yield bytes.subarray(from, at);
    from = at;
  }
}

async function textOf(stream: ReadableStream<Uint8Array>, encoding: CsvEncoding) {
  const bytes = Buffer.from(await new Response(stream).arrayBuffer());
  return encoding === "utf-8" ? bytes.toString("utf8") : iconv.decode(bytes, "cp932");
}
const recordsOf = (text: string) => parse(text, { bom: true, relax_column_count: true }) as string[][];

test("the cells read back as the library writer's, formula cells escaped, in both encodings", async () => {
  const rows = [["header", "other"], ...HOSTILE_CELLS.map((cell) => [cell, `${cell}!`])];
  for (const encoding of ["utf-8", "shift_jis"] as const) {
    const ours = await textOf(spreadsheetCsvOfCopy(blocksOf(copyCsvOf(rows), []), { encoding }), encoding);
    const library = await textOf(spreadsheetCsv(rows, { encoding }), encoding);
    // One difference, on purpose: a cell starting with U+2212 is escaped in UTF-8 as well (the pass runs before
    // the encoding, and Shift_JIS makes it the full-width minus).
    const unlessMinusSign = (records: string[][]) =>
      records.filter((row) => encoding === "shift_jis" || !row[0]!.replace(/^'/, "").startsWith("−"));
    expect(unlessMinusSign(recordsOf(ours))).toEqual(unlessMinusSign(recordsOf(library)));
    expect(ours.startsWith("\uFEFF")).toBe(encoding === "utf-8");
  }
  const escaped = recordsOf(
    await textOf(spreadsheetCsvOfCopy(blocksOf(copyCsvOf(rows), []), { encoding: "utf-8" }), "utf-8"),
  );
  expect(escaped.slice(1).map((row) => row[0])).toEqual([
    "'=cmd|' /C calc'!A0",
    "'+1",
    "'-1",
    "'@SUM(1)",
    "'\tx",
    "'\ry",
    "'\nz",
    "'＝cmd",
    "'＋1",
    "'－1",
    "'＠x",
    "'−1",
    '"=quoted"',
    "'=a,b",
    "plain",
    "山田",
    "〜花子",
    "",
    "a=b",
  ]);
});

test("records end in CRLF, line breaks inside cells stay as they are, and records are counted", () => {
  const pass = new ExcelSafeCsvPass();
  const out = Buffer.from(pass.transform(Buffer.from('a,"x\ny"\n"=1",""\n,\n'))).toString("utf8");
  expect(out).toBe('a,"x\ny"\r\n"\'=1",""\r\n,\r\n');
  expect(pass.records).toBe(3);
});

test("a block may end anywhere, inside a quoted cell or a character, with the same file as the result", async () => {
  const bytes = copyCsvOf(HOSTILE_CELLS.map((cell) => [cell, cell]));
  const whole = await textOf(spreadsheetCsvOfCopy(blocksOf(bytes, []), { encoding: "shift_jis" }), "shift_jis");
  for (let at = 0; at <= bytes.length; at++) {
    const pass = new ExcelSafeCsvPass();
    const split = Buffer.concat([
      pass.transform(bytes.subarray(0, at)),
      pass.transform(bytes.subarray(at)),
      pass.flush(),
    ]);
    expect(split.toString("utf8")).toBe(Buffer.from(new ExcelSafeCsvPass().transform(bytes)).toString("utf8"));
    if (at % 7 === 0) {
      const encoded = spreadsheetCsvOfCopy(blocksOf(bytes, [at]), { encoding: "shift_jis" });
      expect(await textOf(encoded, "shift_jis")).toBe(whole);
    }
  }
});

test("the body pulls a block only as the reader reads, and cancelling ends the source", async () => {
  let pulled = 0;
  let ended = false;
  async function* source() {
    try {
      for (;;) {
        pulled += 1;
        yield Buffer.from("a,b\n");
      }
    } finally {
      ended = true;
    }
  }
  const reader = spreadsheetCsvOfCopy(source(), { encoding: "utf-8" }).getReader();
  await reader.read();
  await reader.read();
  expect(pulled).toBe(2);
  await reader.cancel();
  expect(ended).toBe(true);
});
