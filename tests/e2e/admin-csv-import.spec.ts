import { readFile } from "node:fs/promises";
import type { APIRequestContext, Browser, Download, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { E2E_APP, STANDIN_PORT } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff } from "../support/staff-api-access";
import { latestTemporaryPassword } from "../support/invited-members";
import { signIn, openStaffSessionInBrowser } from "../support/sign-in-form";

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

/** The page fits a phone's width: only the tables scroll, inside their own boxes. */
async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

/** An imported member's first sign-in: the temporary password, then "choose your password", then the app. */
async function signInForTheFirstTime(
  browser: Browser,
  request: APIRequestContext,
  email: string,
  javaScriptEnabled: boolean,
) {
  const context = await browser.newContext({ locale: "ja-JP", javaScriptEnabled });
  const page = await context.newPage();
  try {
    const temporaryPassword = await latestTemporaryPassword(
      async () => (await request.get("/__dev/mailbox/")).text(),
      email,
    );
    await page.goto("/auth/sign-in/?to=my-profile");
    await signIn(page, { email, password: temporaryPassword });
    await expect(page).toHaveURL(/\/auth\/sign-in\/new-password\/\?to=my-profile$/);
    await page.getByLabel("新しいパスワード").fill("my-own-passphrase-2026");
    await page.getByRole("button", { name: "パスワードを設定してログイン" }).click();
    await expect(page).toHaveURL(/\/my\/profile\/$/);
    await expect(page.locator("main")).toContainText(email);
  } finally {
    await context.close();
  }
}

async function signedInAsStaff(page: Page, label: string, javaScriptEnabled: boolean) {
  // Without JavaScript the pages are checked at a phone's width: nothing may scroll sideways there.
  if (!javaScriptEnabled) await page.setViewportSize({ width: 375, height: 812 });
  const admin = await createApiStaff(E2E_APP, label);
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin-csv-import" });
  await expect(page).toHaveURL(/\/admin\/csv-import\/$/);
  return admin;
}

test("staff import members from a CSV: errors by row and column, the fixed file, the job's progress and summary, the failed rows, an imported member's first sign-in", async ({
  page,
  browser,
  request,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const tag = `csv${crypto.randomUUID().slice(0, 8)}`;
  await signedInAsStaff(page, tag, javaScriptEnabled);
  await expect(page.getByRole("heading", { level: 2, name: "CSVインポート" })).toBeVisible();
  await expectNoSidewaysScroll(page);

  // The template downloads; the header is documented, with the profile form's codes in the page's language, on a
  // page of its own that the import page links to.
  const templateDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: /テンプレートをダウンロード/ }).click();
  const template = await downloadedText(await templateDownload);
  expect(template.startsWith(UTF8_BOM)).toBe(true);
  const templateRows = parse(template, { bom: true }) as string[][];
  expect(templateRows[0]).toEqual(HEADER);
  expect(templateRows).toHaveLength(2);
  await page.getByRole("link", { name: "列と使える値の一覧を見る" }).click();
  await expect(page.getByRole("heading", { level: 2, name: "CSVの列と使える値" })).toBeVisible();
  const columns = page.getByTestId("csv-columns");
  for (const column of HEADER) await expect(columns.getByRole("rowheader", { name: column })).toBeVisible();
  await expect(columns).toContainText("建築設計");
  await expectNoSidewaysScroll(page);
  await page.getByRole("link", { name: "CSVインポートに戻る" }).click();
  await expect(page.getByRole("heading", { level: 2, name: "CSVインポート" })).toBeVisible();

  // Three bad rows of different kinds: an invalid e-mail, a duplicate in the file, a formula cell.
  const [first, second, third, taken] = [1, 2, 3, 4].map((index) => `${tag}-${index}@example.jp`) as [
    string,
    string,
    string,
    string,
  ];
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
  await expect(page.getByTestId("import-report")).toContainText("ファイルを修正して、もう一度アップロードしてください");
  const problems = page.getByTestId("import-errors").locator("tbody tr");
  const problemAt = (row: number, column: string) =>
    problems
      .filter({ has: page.getByRole("rowheader", { name: String(row), exact: true }) })
      .filter({ has: page.locator("code", { hasText: new RegExp(`^${column}$`) }) });
  await expect(problemAt(6, "email")).toContainText("メールアドレスの形式が正しくありません");
  await expect(problemAt(6, "email")).toContainText(`${tag}-bad-address`);
  await expect(problemAt(3, "email")).toContainText("同じメールアドレスが 7 行目にもあります");
  await expect(problemAt(7, "email")).toContainText("同じメールアドレスが 3 行目にもあります");
  await expect(problemAt(8, "organization")).toContainText("数式として扱う文字");
  await expect(problemAt(8, "organization")).toContainText("=cmd|' /C calc'!A0");
  await expect(problems).toHaveCount(4);
  await expectNoSidewaysScroll(page);

  // The fixed file: the three bad rows left out. The dry run stores it as a job waiting to start.
  await uploadAndCheck(page, `${tag}-fixed.csv`, excelCsv(good));
  await expect(page.getByTestId("import-ready")).toContainText("4 行を登録できます");
  await expectNoSidewaysScroll(page);
  // Between the check and the start, one address becomes a member elsewhere: its row fails at creation.
  await createNamedMember(STANDIN_PORT, { email: taken });
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page).toHaveURL(/\/admin\/csv-import\/[0-9a-f-]{36}\/$/);
  await expect(page.getByRole("heading", { level: 2, name: "インポートの状況" })).toBeVisible();
  // A job's page belongs to the CSV import in the staff menu.
  await expect(page.getByRole("navigation", { name: "管理メニュー" }).locator('[aria-current="page"]')).toHaveText([
    "CSVインポート",
  ]);

  // Progress while it runs (the e2e server creates 2 members a second), then the page refreshes itself (polling
  // with JavaScript, the meta refresh without) until the summary: the test never reloads.
  await expect(page.getByTestId("import-state")).toHaveText(/開始待ち|実行中/);
  await expect(page.getByRole("progressbar", { name: "進み具合" })).toBeVisible();
  await expect(page.getByTestId("import-eta")).toContainText("残り時間の目安");
  await expectNoSidewaysScroll(page);
  const summary = page.getByTestId("import-summary");
  await expect(summary).toBeVisible({ timeout: 60_000 });
  await expect(summary).toContainText("3 人を作成し、1 行が失敗しました");
  await expect(page.getByTestId("import-state")).toHaveText("完了");
  await expect(page.getByTestId("import-created")).toHaveText("3");
  await expect(page.getByTestId("import-failed")).toHaveText("1");
  await expect(page.getByTestId("import-remaining")).toHaveText("0");
  await expectNoSidewaysScroll(page);

  // The failed row with its reason, as Excel opens it.
  const failedDownload = page.waitForEvent("download");
  await page.getByRole("link", { name: /失敗した行と理由をダウンロード/ }).click();
  const failed = await downloadedText(await failedDownload);
  expect(failed.startsWith(UTF8_BOM)).toBe(true);
  const failedRows = parse(failed, { bom: true }) as string[][];
  expect(failedRows).toHaveLength(2);
  expect(failedRows[1]).toEqual(
    expect.arrayContaining([taken, "高橋", "5", "alreadyMember", "このメールアドレスの会員は既に存在します。"]),
  );

  // The same file in Shift_JIS for older Excel: Japanese text intact, no BOM.
  const shiftJisLink = page.getByRole("link", { name: "（Shift_JIS 版）" });
  const shiftJis = await page.request.get((await shiftJisLink.getAttribute("href")) ?? "");
  expect(shiftJis.headers()["content-type"]).toBe("text/csv; charset=shift_jis");
  const shiftJisText = iconv.decode(await shiftJis.body(), "cp932");
  expect(shiftJisText).toContain("高橋");
  expect(shiftJisText.startsWith(UTF8_BOM)).toBe(false);

  // The recent imports list the job; an id that is no job is the 404 page.
  await page.getByRole("link", { name: "CSVインポートに戻る" }).click();
  await expect(
    page
      .getByTestId("import-jobs")
      .locator("tbody tr")
      .filter({ hasText: `${tag}-fixed.csv` })
      .first(),
  ).toContainText("3 / 1 / 4");
  const unknown = await page.goto(`/admin/csv-import/${crypto.randomUUID()}/`);
  expect(unknown?.status()).toBe(404);

  // An imported member's first sign-in: the invitation's temporary password, then a password of their own.
  await signInForTheFirstTime(browser, request, first, javaScriptEnabled);
});

test("staff discard a checked file, and cancel a running import after confirming", async ({
  page,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const tag = `csvc${crypto.randomUUID().slice(0, 8)}`;
  await signedInAsStaff(page, tag, javaScriptEnabled);
  const rows = Array.from({ length: 12 }, (_, index) => goodRow(`${tag}-${index}@example.jp`, "中村", "桜"));

  // No file: the form says so (in the browser with JavaScript, from the action without).
  await page.getByRole("button", { name: "チェックする" }).click();
  await expect(page.getByText("CSVファイルを選んでください。")).toBeVisible();
  await expect(page.getByTestId("import-report")).toHaveCount(0);

  // A file just over the cap (5 MB) still reaches the dry run, which says so in the page's language. (Past the cap
  // and the multipart allowance, the page lane answers 413 before any page runs.)
  const filler = ["x".repeat(198)]; // 200 bytes a line with its CRLF: 26,300 lines are about 5.02 MB
  await uploadAndCheck(page, `${tag}-huge.csv`, excelCsv(Array.from({ length: 26_300 }, () => filler)));
  await expect(page.getByTestId("import-report")).toContainText("ファイルが 5 MB を超えています");

  // Discard: the checked file's job ends before anyone is created.
  await uploadAndCheck(page, `${tag}-discard.csv`, excelCsv(rows.slice(0, 2)));
  await page.getByRole("button", { name: "取りやめる" }).click();
  await expect(page.getByTestId("toast")).toContainText("チェックしたファイルを取りやめました");
  await expect(page.getByTestId("import-ready")).toHaveCount(0);
  await expect(
    page
      .getByTestId("import-jobs")
      .locator("tbody tr")
      .filter({ hasText: `${tag}-discard.csv` }),
  ).toContainText("中止");

  // Cancel: asked first, then the rows not yet created are left.
  await uploadAndCheck(page, `${tag}-cancel.csv`, excelCsv(rows));
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page.getByTestId("toast")).toContainText("インポートを開始しました");
  await page.getByRole("link", { name: "中止する" }).click();
  await expect(page.getByTestId("confirm-panel")).toContainText("インポートを中止しますか");
  await expectNoSidewaysScroll(page);
  await page.getByTestId("confirm-panel").getByRole("button", { name: "中止する" }).click();
  await expect(page.getByTestId("toast")).toContainText("インポートを中止しました");
  await expect(page.getByTestId("import-state")).toHaveText("中止");
  const summary = page.getByTestId("import-summary");
  await expect(summary).toContainText("中止しました");
  // A creation already in flight finishes; everything after it is left.
  expect(Number(await page.getByTestId("import-created").textContent())).toBeLessThan(rows.length);
  await expect(summary).toContainText("行は作成しませんでした");
});
