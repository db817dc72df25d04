import iconv from "iconv-lite";
import { expect, test } from "vitest";
import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_MAX_FILE_BYTES,
  CSV_IMPORT_MAX_ROWS,
  readImportFile,
} from "~/domain/csv-import/csv-import-file.server";

const HEADER = CSV_IMPORT_COLUMNS.join(",");
const row = (email: string, family = "山田", given = "花子") =>
  `${email},${family},${given},1990,JP,東京都,design,設計事務所,ja`;
const utf8 = (text: string) => new TextEncoder().encode(text);

test("a clean UTF-8 file without a BOM gives every row with the profile form's values", async () => {
  const reading = await readImportFile(utf8(`${HEADER}\n${row("Hanako@Example.JP")}\n${row("taro@example.jp")}\n`));
  expect(reading.problems).toEqual([]);
  expect(reading.encoding).toBe("utf-8");
  expect(reading.totalRows).toBe(2);
  expect(reading.rows[0]).toEqual({
    rowNumber: 2,
    values: {
      email: "hanako@example.jp",
      familyName: "山田",
      givenName: "花子",
      birthYear: 1990,
      country: "JP",
      prefecture: "東京都",
      occupation: "design",
      organization: "設計事務所",
      preferredLanguage: "ja",
    },
  });
});

test("Excel's CSV UTF-8 (with BOM, CRLF) and its Shift_JIS CSV (CP932, ～ included) read the same", async () => {
  const text = `${HEADER}\r\n${row("a@example.jp", "髙橋", "ゆう～こ")}\r\n`;
  const withBom = await readImportFile(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(text)]));
  const cp932 = await readImportFile(new Uint8Array(iconv.encode(text, "cp932")));
  expect(withBom.encoding).toBe("utf-8");
  expect(cp932.encoding).toBe("shift_jis");
  for (const reading of [withBom, cp932]) {
    expect(reading.problems).toEqual([]);
    expect(reading.rows[0]?.values).toMatchObject({ email: "a@example.jp", familyName: "髙橋", givenName: "ゆう～こ" });
  }
});

test("header names are matched trimmed and case-insensitively, in any order", async () => {
  const header = [...CSV_IMPORT_COLUMNS]
    .reverse()
    .map((name) => ` ${name.toUpperCase()} `)
    .join(",");
  const cells = row("a@example.jp").split(",").reverse().join(",");
  const reading = await readImportFile(utf8(`${header}\n${cells}\n`));
  expect(reading.problems).toEqual([]);
  expect(reading.rows[0]?.values.email).toBe("a@example.jp");
});

test("unknown, missing and repeated columns are problems of the file, in row 1", async () => {
  const header = HEADER.replace("organization", "company").replace("country", "email");
  const reading = await readImportFile(utf8(`${header}\n${row("a@example.jp")}\n`));
  expect(reading.rows).toEqual([]);
  expect(reading.problems).toEqual([
    { row: 1, column: "email", code: "repeatedColumn", value: null },
    { row: 1, column: "company", code: "unknownColumn", value: null },
    { row: 1, column: "country", code: "missingColumn", value: null },
    { row: 1, column: "organization", code: "missingColumn", value: null },
  ]);
});

test("every bad row is reported by Excel row and column, with the offending value", async () => {
  const lines = [
    HEADER,
    row("not-an-address"), // 2
    "b@example.jp,山田,花子,1850,XX,東京都,astronaut,会社,fr", // 3
    row("c@example.jp", '"=HYPERLINK(""x"")"', "＠given"), // 4
    "d@example.jp,山田,花子,1990,JP", // 5
    row("e@example.jp", "", "花子"), // 6
    ",,,,,,,,", // 7: a blank row Excel writes: skipped, but still counted as a row
    row("dup@example.jp"), // 8
    row("DUP@example.jp"), // 9
    row("f@example.jp", "x".repeat(70)), // 10
    row("g@example.jp", " -1"), // 11
  ];
  const reading = await readImportFile(utf8(lines.join("\n")));
  expect(reading.rows).toEqual([]);
  expect(reading.totalRows).toBe(9);
  expect(reading.problems).toEqual([
    { row: 2, column: "email", code: "invalidEmail", value: "not-an-address" },
    { row: 3, column: "birth_year", code: "invalidBirthYear", value: "1850" },
    { row: 3, column: "country", code: "invalidChoice", value: "XX" },
    { row: 3, column: "occupation", code: "invalidChoice", value: "astronaut" },
    { row: 3, column: "preferred_language", code: "invalidChoice", value: "fr" },
    { row: 4, column: "family_name", code: "formula", value: '=HYPERLINK("x")' },
    { row: 4, column: "given_name", code: "formula", value: "＠given" },
    { row: 5, column: null, code: "cellCount", value: "5" },
    { row: 6, column: "family_name", code: "required", value: null },
    { row: 8, column: "email", code: "duplicateInFile", value: "dup@example.jp", otherRow: 9 },
    { row: 9, column: "email", code: "duplicateInFile", value: "dup@example.jp", otherRow: 8 },
    { row: 10, column: "family_name", code: "tooLong", value: `${"x".repeat(60)}…` },
    { row: 11, column: "family_name", code: "formula", value: " -1" },
  ]);
});

test("a quoted cell may span lines and still counts as one row; a quote never closed stops the reading there", async () => {
  const spanning = await readImportFile(
    utf8(`${HEADER}\n${row("a@example.jp", '"山\n田"')}\n${row("b@example.jp")}\n`),
  );
  expect(spanning.problems).toEqual([]);
  expect(spanning.rows.map((r) => r.rowNumber)).toEqual([2, 3]);

  const unclosed = `${HEADER}\n${row("a@example.jp")}\n${row("b@example.jp", '"山田')}\n${row("c@example.jp")}\n`;
  const broken = await readImportFile(utf8(unclosed));
  expect(broken.problems).toEqual([{ row: 3, column: null, code: "badQuoting", value: null }]);
});

test("the size and row caps refuse the file as a whole", async () => {
  const tooBig = await readImportFile(new Uint8Array(CSV_IMPORT_MAX_FILE_BYTES + 1));
  expect(tooBig.problems).toEqual([{ row: null, column: null, code: "fileTooLarge", value: null }]);

  const lines = Array.from({ length: CSV_IMPORT_MAX_ROWS + 1 }, (_, index) => row(`m${index}@example.jp`));
  const tooMany = await readImportFile(utf8(`${HEADER}\n${lines.join("\n")}\n`));
  expect(tooMany.problems).toEqual([{ row: null, column: null, code: "tooManyRows", value: null }]);

  expect((await readImportFile(utf8(""))).problems).toEqual([
    { row: null, column: null, code: "emptyFile", value: null },
  ]);
});

test("a formula behind any leading space the stored value loses is refused: NBSP, U+FEFF, other Unicode spaces", async () => {
  const spaced = ["\u00A0=cmd|' /C calc'!A0", "\uFEFF+1", "\u2003@SUM(A1)", "\u202F\u3000－1", "\u205F\u00A0＝1"];
  const lines = [HEADER, ...spaced.map((value, index) => row(`s${index}@example.jp`, value))];
  const reading = await readImportFile(utf8(lines.join("\n")));
  expect(reading.rows).toEqual([]);
  expect(reading.problems).toEqual(
    spaced.map((value, index) => ({ row: index + 2, column: "family_name", code: "formula", value })),
  );
});

test("reading stops at the row cap, and empty lines count as neither rows nor toward the cap", async () => {
  const lines = Array.from({ length: CSV_IMPORT_MAX_ROWS + 3000 }, (_, index) => row(`m${index}@example.jp`));
  const tooMany = await readImportFile(utf8(`${HEADER}\n${lines.join("\n")}\n`));
  // The rows past the first one over the cap are never read.
  expect(tooMany.totalRows).toBe(CSV_IMPORT_MAX_ROWS + 1);
  expect(tooMany.problems).toEqual([{ row: null, column: null, code: "tooManyRows", value: null }]);

  // Empty lines (a file padded with a million newlines, say) are skipped; rows keep their Excel numbers.
  const padded = `${HEADER}\n\n\n${row("a@example.jp")}\n${"\n".repeat(1_000_000)}${row("b@example.jp", "=1")}\n`;
  const reading = await readImportFile(utf8(padded));
  expect(reading.totalRows).toBe(2);
  expect(reading.rows.map((r) => r.rowNumber)).toEqual([4]);
  expect(reading.problems).toEqual([{ row: 1_000_005, column: "family_name", code: "formula", value: "=1" }]);
});

test("the failed-rows download can be uploaded again as it is: its reason columns are ignored", async () => {
  const header = `${HEADER},source_row,failure_code,failure_reason`;
  const reading = await readImportFile(utf8(`${header}\n${row("a@example.jp")},7,alreadyMember,既に存在します\n`));
  expect(reading.problems).toEqual([]);
  expect(reading.rows[0]?.values.email).toBe("a@example.jp");
});
