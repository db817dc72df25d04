import { readFile } from "node:fs/promises";
import { type Download, type Page, expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { STANDIN_PORT } from "../../playwright.config";
import { createNamedMember, createStaffAdmin } from "../support/admin-members";
import { signIn } from "../support/sign-in-form";

const UTF8_BOM = "\uFEFF";
const HEADER = [
  "email",
  "family_name",
  "given_name",
  "birth_year",
  "country",
  "prefecture",
  "occupation",
  "organization",
  "preferred_language",
];

/** A row that passes the dry run, with Japanese names and the profile form's codes. */
function goodRow(email: string, familyName: string, givenName: string, language = "ja"): string[] {
  return [email, familyName, givenName, "1985", "JP", "東京都", "architect", "新建築設計", language];
}

/** A CSV as Excel's "CSV UTF-8" writes it: BOM, CRLF, quotes where a cell needs them. */
function excelCsv(rows: readonly (readonly string[])[]): Buffer {
  const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return Buffer.from(UTF8_BOM + [HEADER, ...rows].map((row) => row.map(quoted).join(",")).join("\r\n") + "\r\n");
}

/** A downloaded file's text, BOM kept, so the test sees what Excel would. */
async function downloadedText(download: Download): Promise<string> {
  return (await readFile(await download.path())).toString("utf8");
}

async function uploadAndCheck(page: Page, name: string, contents: Buffer) {
  await page.getByLabel("CSVファイル").setInputFiles({ name, mimeType: "text/csv", buffer: contents });
  await page.getByRole("button", { name: "チェックする" }).click();
}

test("staff import members from a CSV: errors by row and column, the fixed file, the job's progress and summary, the failed rows, an imported member's first sign-in", async ({
  page,
  javaScriptEnabled,
}) => {
  test.setTimeout(180_000);
  const tag = `csv${crypto.randomUUID().slice(0, 8)}`;
  const admin = await createStaffAdmin(STANDIN_PORT, tag);
  await page.goto("/auth/sign-in/?to=admin-csv-import");
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/admin\/csv-import\/$/);
  await expect(page.getByRole("heading", { level: 2, name: "CSVインポート" })).toBeVisible();

  // The header is documented with the profile form's codes in the page's language, and the template downloads.
  const columns = page.getByTestId("csv-columns");
  for (const column of HEADER) await expect(columns.getByRole("rowheader", { name: column })).toBeVisible();
  await expect(columns).toContainText("建築設計");
  const templateDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: /テンプレートをダウンロード/ }).click();
  const template = await downloadedText(await templateDownload);
  expect(template.startsWith(UTF8_BOM)).toBe(true);
  const templateRows = parse(template, { bom: true }) as string[][];
  expect(templateRows[0]).toEqual(HEADER);
  expect(templateRows).toHaveLength(2);

  // Three bad rows of different kinds: an invalid e-mail, a duplicate in the file, a formula cell.
  const emails = [1, 2, 3, 4].map((index) => `${tag}-${index}@example.jp`);
  const [first, second, third, taken] = emails as [string, string, string, string];
  const good = [
    goodRow(first, "山田", "花子"),
    goodRow(second, "佐藤", "太郎", "en"),
    goodRow(third, "鈴木", "一郎"),
    goodRow(taken, "高橋", "次郎"),
  ];
  const badFile = excelCsv([
    ...good,
    goodRow(`${tag}-bad-address`, "田中", "三郎"), // row 6
    goodRow(second, "伊藤", "四郎"), // row 7: the address of row 3
    [...goodRow(`${tag}-5@example.jp`, "渡辺", "五郎").slice(0, 7), "=cmd|' /C calc'!A0", "ja"], // row 8
  ]);
  await uploadAndCheck(page, "members.csv", badFile);
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("ファイルを修正して、もう一度アップロードしてください");
  const problems = page.getByTestId("import-errors").locator("tbody tr");
  const problemAt = (row: number, column: string) =>
    problems.filter({ has: page.getByRole("rowheader", { name: String(row), exact: true }) }).filter({
      has: page.locator("code", { hasText: new RegExp(`^${column}$`) }),
    });
  await expect(problemAt(6, "email")).toHaveCount(1);
  await expect(problemAt(6, "email")).toContainText(`${tag}-bad-address`);
  await expect(problemAt(3, "email")).toHaveCount(1);
  await expect(problemAt(7, "email")).toHaveCount(1);
  await expect(problemAt(8, "organization")).toHaveCount(1);
  // Each message is a translated text, not a key.
  for (const row of await problems.all()) await expect(row.locator("td").nth(1)).not.toContainText("problems.");

  // The fixed file: the three bad rows left out. The dry run stores it as a job waiting to start.
  await uploadAndCheck(page, "members-fixed.csv", excelCsv(good));
  await expect(page.getByTestId("import-ready")).toContainText("4 行を登録できます");
  // Between the check and the start, one address becomes a member elsewhere: its row fails at creation.
  await createNamedMember(STANDIN_PORT, { email: taken });
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page).toHaveURL(/\/admin\/csv-import\/[0-9a-f-]{36}\/$/);
  await expect(page.getByRole("heading", { level: 2, name: "インポートの状況" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "進み具合" })).toBeVisible();

  // The page refreshes itself (polling with JavaScript, a meta refresh without) until the summary.
  const summary = page.getByTestId("import-summary");
  await expect(summary).toBeVisible({ timeout: 60_000 });
  await expect(summary).toContainText("3 人を作成し、1 行が失敗しました");
  await expect(page.getByTestId("import-created")).toHaveText("3");
  await expect(page.getByTestId("import-failed")).toHaveText("1");
  await expect(page.getByTestId("import-remaining")).toHaveText("0");

  // The failed row with its reason, as Excel opens it.
  const failedDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: /失敗した行と理由をダウンロード/ }).click();
  const failed = await downloadedText(await failedDownload);
  expect(failed.startsWith(UTF8_BOM)).toBe(true);
  const failedRows = parse(failed, { bom: true }) as string[][];
  expect(failedRows).toHaveLength(2);
  expect(failedRows[1]).toContain(taken);

  // The recent imports list the job.
  await page.getByRole("link", { name: "CSVインポートに戻る" }).click();
  await expect(page.getByTestId("import-jobs")).toContainText("members-fixed.csv");
  void javaScriptEnabled;
});
