import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { openStaffSessionInBrowser } from "../support/sign-in-form";

/** Submits one of the page's forms (named by its heading) and returns the file the browser saved. */
async function downloadFrom(page: Page, formTitle: string, fill: (form: ReturnType<Page["locator"]>) => Promise<void>) {
  const form = page.getByRole("form", { name: formTitle });
  await fill(form);
  const saved = page.waitForEvent("download");
  await form.getByRole("button").click();
  const download = await saved;
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

const recordsOf = (text: string) => parse(text, { bom: true, relax_column_count: true }) as string[][];
const BOM = [0xef, 0xbb, 0xbf];

test("staff download each export from the downloads page: BOM, Japanese, escaped formulas, header off, paging", async ({
  page,
}) => {
  const tag = `dl-${crypto.randomUUID().slice(0, 8)}`;
  const admin = await createApiStaff(E2E_APP, tag);
  const members = [];
  for (const [index, names] of (
    [
      { familyName: "=cmd|' /C calc'!A0", givenName: "〜花子", locale: "ja" },
      { familyName: "＝cmd", givenName: "太郎", locale: "en" },
      { familyName: "山田", givenName: "次郎", locale: "ja" },
    ] as const
  ).entries()) {
    members.push(await createNamedMember(STANDIN_PORT, { email: `${tag}-${index}@example.jp`, ...names }));
  }
  await refreshIntoDirectory(E2E_APP, [admin, ...members]);

  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin-downloads" });
  await expect(page.getByRole("heading", { level: 2, name: "各種ダウンロード" })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: /管理/ }).getByRole("link", { name: "各種ダウンロード" }),
  ).toBeVisible();

  const users = await downloadFrom(page, "会員一覧（users.csv）", async (form) => {
    await form.getByLabel("検索", { exact: true }).fill(tag);
  });
  expect(users.name).toMatch(/^users-\d{8}-\d{4}\.csv$/);
  expect([...users.bytes.subarray(0, 3)]).toEqual(BOM);
  const [header, ...rows] = recordsOf(users.bytes.toString("utf8"));
  expect(header!.slice(0, 2)).toEqual(["sub", "email"]);
  // The admin's own e-mail starts with the tag too: three members and the admin.
  const byEmail = new Map(rows.map((row) => [row[1], row]));
  expect(byEmail.get(`${tag}-0@example.jp`)!.slice(5, 7)).toEqual(["'=cmd|' /C calc'!A0", "〜花子"]);
  expect(byEmail.get(`${tag}-1@example.jp`)!.slice(5, 7)).toEqual(["'＝cmd", "太郎"]);
  expect(rows).toHaveLength(4);

  // Page 1 of 2-row pages, no header: exactly the third and fourth rows of the whole file.
  const paged = await downloadFrom(page, "会員一覧（users.csv）", async (form) => {
    await form.getByLabel("検索", { exact: true }).fill(tag);
    await form.getByLabel("ページ（0から）").fill("1");
    await form.getByLabel("1ページの行数").fill("2");
    await form.getByLabel("見出し行").selectOption("0");
  });
  expect(recordsOf(paged.bytes.toString("utf8"))).toEqual(rows.slice(2, 4));

  const sjis = await downloadFrom(page, "会員一覧（users.csv）", async (form) => {
    // A download leaves the page as it was: the previous download's fields are still filled in.
    await form.getByLabel("検索", { exact: true }).fill(`${tag}-0`);
    await form.getByLabel("ページ（0から）").fill("0");
    await form.getByLabel("見出し行").selectOption("1");
    await form.getByLabel("文字コード").selectOption("shift_jis");
  });
  expect(recordsOf(iconv.decode(sjis.bytes, "cp932"))[1]!.slice(5, 7)).toEqual(["'=cmd|' /C calc'!A0", "～花子"]);

  const emails = await downloadFrom(page, "メールアドレス（メールマガジン用）", async (form) => {
    await form.getByLabel("希望言語").selectOption("en");
  });
  expect([...emails.bytes.subarray(0, 3)]).toEqual(BOM);
  const [emailsHeader, ...emailRows] = recordsOf(emails.bytes.toString("utf8"));
  // Each address with its member's one-click unsubscribe URL (tests/e2e/newsletter.spec.ts follows them).
  expect(emailsHeader).toEqual(["email", "family_name", "given_name", "unsubscribe_url"]);
  const english = emailRows.map((row) => row[0]);
  expect(english).toContain(`${tag}-1@example.jp`);
  expect(english).not.toContain(`${tag}-0@example.jp`);

  const reasons = await downloadFrom(page, "退会理由", async () => {});
  expect(recordsOf(reasons.bytes.toString("utf8"))[0]).toEqual([
    "cancelled_at",
    "locale",
    "reason",
    "reason_label",
    "detail",
  ]);
});

test("a bad parameter brings the downloads page back with the field's error and what was typed", async ({ page }) => {
  const admin = await createApiStaff(E2E_APP, "dl-bad");
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin-downloads" });
  const form = page.getByRole("form", { name: "会員一覧（users.csv）" });
  await form.getByLabel("1ページの行数").fill("0");
  await form.getByRole("button").click();
  await expect(page).toHaveURL(/\/admin\/downloads\/\?.*form=users/);
  const limit = page.getByRole("form", { name: "会員一覧（users.csv）" }).getByLabel("1ページの行数");
  await expect(limit).toHaveValue("0");
  await expect(limit).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("入力内容に誤りがあります")).toBeVisible();
});
