import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { expect, test } from "vitest";
import {
  CP932_REPLACEMENT,
  type CsvCell,
  type CsvEncoding,
  contentDisposition,
  formatJapanTime,
  spreadsheetCsv,
} from "~/domain/staff/spreadsheet-csv.server";

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

async function csvOf(rows: CsvCell[][], encoding: CsvEncoding, header?: string[]) {
  const bytes = await bytesOf(spreadsheetCsv(rows, { encoding, header }));
  const text = encoding === "utf-8" ? bytes.toString("utf8") : iconv.decode(bytes, "cp932");
  return { bytes, text, records: parse(text, { bom: true, relax_column_count: true }) as string[][] };
}

test("UTF-8 files start with a BOM, with or without a header row", async () => {
  for (const header of [["email"], undefined]) {
    const { bytes, records } = await csvOf([["a@example.jp"]], "utf-8", header);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(records.at(-1)).toEqual(["a@example.jp"]);
  }
  const empty = await bytesOf(spreadsheetCsv([], { encoding: "utf-8" }));
  expect([...empty]).toEqual([0xef, 0xbb, 0xbf]);
});

test("Shift_JIS files round-trip Japanese through CP932, the wave dash mapped to the full-width tilde", async () => {
  const { bytes, records } = await csvOf([["山田 髙橋 ① ㈱", "10〜20", "10～20", "5−3 ‖ ¢£¬"]], "shift_jis", ["名前"]);
  expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
  expect(records).toEqual([["名前"], ["山田 髙橋 ① ㈱", "10～20", "10～20", "5－3 ∥ ￠￡￢"]]);
});

test("characters CP932 cannot hold become a visible geta mark, never a silent '?'", async () => {
  const { records } = await csvOf([["𠮷野家 😀 ok?"]], "shift_jis");
  expect(records).toEqual([[`${CP932_REPLACEMENT}野家 ${CP932_REPLACEMENT} ok?`]]);
});

test("cells that could start a formula get a leading quote, half- and full-width alike", async () => {
  const cells = ["=cmd|' /C calc'!A0", "＝cmd", "@x", "-1+1", "+1", "\tx", "\rx", "\nx", "＋1", "－1", "＠x"];
  for (const encoding of ["utf-8", "shift_jis"] as const) {
    const { records } = await csvOf([cells], encoding);
    expect(records[0]).toEqual(cells.map((cell) => `'${cell}`));
  }
});

test("a minus sign (U+2212) is escaped in Shift_JIS too, where it becomes the full-width minus", async () => {
  const { records } = await csvOf([["−1"]], "shift_jis");
  expect(records[0]).toEqual(["'－1"]);
});

test("numbers we emit stay numbers; ordinary text is untouched", async () => {
  const { text, records } = await csvOf([[-3, 1990, true, null, "a-b", "メール"]], "utf-8");
  expect(text).toBe("\uFEFF-3,1990,true,,a-b,メール\r\n");
  expect(records[0]).toEqual(["-3", "1990", "true", "", "a-b", "メール"]);
});

test("quotes, commas and newlines inside cells parse back exactly (RFC 4180)", async () => {
  const cells = ['say "hi"', "a,b", "line 1\nline 2", "cr\r\nlf", " padded ", '"=x"'];
  const { records } = await csvOf([cells, ["second"]], "utf-8");
  expect(records).toEqual([cells, ["second"]]);
});

test("the stream pulls its source only as the reader reads, and cancelling ends the source", async () => {
  let produced = 0;
  let returned = false;
  async function* rows() {
    try {
      for (;;) {
        produced += 1;
        yield [`row ${produced}`];
      }
    } finally {
      returned = true;
    }
  }
  const reader = spreadsheetCsv(rows(), { encoding: "utf-8" }).getReader();
  await reader.read();
  const afterOneChunk = produced;
  expect(afterOneChunk).toBeGreaterThan(0);
  // An infinite source: only a bounded number of rows was read for one chunk.
  expect(afterOneChunk).toBeLessThan(1000);
  await reader.cancel();
  expect(returned).toBe(true);
  expect(produced).toBe(afterOneChunk);
});

test("a failing source errors the stream rather than ending the file early", async () => {
  async function* rows() {
    yield ["first"];
    throw new Error("cursor failed");
  }
  await expect(bytesOf(spreadsheetCsv(rows(), { encoding: "utf-8" }))).rejects.toThrow("cursor failed");
});

test("the download name carries the Japan date and time, with an ASCII fallback and an RFC 5987 name", () => {
  const now = new Date("2026-11-22T14:15:30Z");
  expect(formatJapanTime(now)).toBe("2026-11-22 23:15:30");
  expect(contentDisposition("users", now)).toBe(
    `attachment; filename="users-20261122-2315.csv"; filename*=UTF-8''users-20261122-2315.csv`,
  );
  expect(contentDisposition("退会理由", new Date("2026-12-31T15:05:00Z"))).toBe(
    `attachment; filename="____-20270101-0005.csv"; filename*=UTF-8''%E9%80%80%E4%BC%9A%E7%90%86%E7%94%B1-20270101-0005.csv`,
  );
});
