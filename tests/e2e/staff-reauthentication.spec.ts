import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { importCsv } from "../support/csv-import-files";
import { passMinutes } from "../support/session-clock";
import { confirmStaffInBrowser, openStaffSessionInBrowser } from "../support/sign-in-form";

/**
 * The staff session's clock in the browser (docs/security.md, "Staff rights on the admin API"): it ends after 30
 * minutes without a staff page, and the high-impact actions need the password and code from the last 10 minutes, asked
 * again on the staff sign-in's confirm mode, which brings the staff member back to finish. The session clock is the dev
 * tools' (/demo/); each staff member is the test's own, so the js-on and js-off runs never share a session. A staff
 * member's third sign-in in a test would wait for the authenticator's next time step (the stand-in, as Cognito, refuses
 * a step twice), so each test confirms once.
 */

test("the staff area ends after 30 minutes without a staff page: the next one is the staff sign-in (English)", async ({
  page,
}) => {
  const staff = await createApiStaff(E2E_APP, "staff-idle");
  await openStaffSessionInBrowser(page, staff, { path: "/en/admin/sign-in/?to=admin-users", locale: "en" });
  await expect(page).toHaveURL(/\/en\/admin\/users\/$/);

  // 29 minutes idle: still open, and the view counts as use.
  await passMinutes(page, 29, "en");
  await page.goto("/en/admin/users/");
  await expect(page).toHaveURL(/\/en\/admin\/users\/$/);

  await passMinutes(page, 31, "en");
  await page.goto("/en/admin/users/");
  await expect(page).toHaveURL(/\/en\/admin\/sign-in\/\?to=admin-users$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Log in to the staff area");
});

/** A staff member signed in on the page of a member of their own, both in the directory. */
async function staffOnMemberPage(page: Page, tag: string) {
  const staff = await createApiStaff(E2E_APP, `staff-${tag}`);
  const target = await createNamedMember(STANDIN_PORT, { email: `${tag}@example.jp` });
  await refreshIntoDirectory(E2E_APP, [staff, target]);
  const detail = `/admin/users/${target.sub}/`;
  await openStaffSessionInBrowser(page, staff, { path: detail });
  await expect(page).toHaveURL(detail);
  return { staff, target, detail };
}

test("a member's e-mail change asks for the password and code after 10 minutes, then goes ahead", async ({ page }) => {
  const tag = `reauth${crypto.randomUUID().slice(0, 8)}`;
  const { staff, target, detail } = await staffOnMemberPage(page, tag);

  await passMinutes(page, 11);
  await page.goto(detail);
  const newEmail = `${tag}-new@example.jp`;
  await page.getByLabel("新しいメールアドレス").fill(newEmail);
  await page.getByRole("button", { name: "確認へ進む" }).click();
  await page.getByTestId("email-change-review").getByRole("button", { name: "変更する" }).click();
  await expect(page).toHaveURL(`/admin/sign-in/?${new URLSearchParams({ mode: "confirm", to: detail })}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("本人確認");
  await confirmStaffInBrowser(page, staff);
  // Back on the member's page, the typed address in its review panel: one more press changes it.
  await expect(page).toHaveURL(detail);
  await expect(page.getByTestId("member-email")).toHaveText(target.email);
  await expect(page.getByTestId("email-change-review")).toContainText(newEmail);
  await page.getByTestId("email-change-review").getByRole("button", { name: "変更する" }).click();
  await expect(page.getByTestId("toast")).toContainText("メールアドレスを変更しました");
  await expect(page.getByTestId("member-email")).toHaveText(newEmail);
});

test("disabling a member asks for the password and code after 10 minutes, then goes ahead", async ({ page }) => {
  const { staff, detail } = await staffOnMemberPage(page, `reauth-off${crypto.randomUUID().slice(0, 8)}`);

  await passMinutes(page, 11);
  await page.goto(detail);
  await page.getByRole("link", { name: "アカウントを無効化" }).click();
  await page.getByTestId("confirm-panel").getByRole("button", { name: "無効化する" }).click();
  const confirmDisable = `${detail}?confirm=disable`;
  await expect(page).toHaveURL(`/admin/sign-in/?${new URLSearchParams({ mode: "confirm", to: confirmDisable })}`);
  await expect(page.getByTestId("member-status")).toHaveCount(0);
  await confirmStaffInBrowser(page, staff);
  // Back at the disable's confirmation panel, the member still enabled.
  await expect(page).toHaveURL(confirmDisable);
  await expect(page.getByTestId("member-status")).not.toHaveText("無効化");
  await page.getByTestId("confirm-panel").getByRole("button", { name: "無効化する" }).click();
  await expect(page.getByTestId("toast")).toContainText("アカウントを無効化しました");
  await expect(page.getByTestId("member-status")).toHaveText("無効化");
});

test("a download of every matching member asks for the password and code after 10 minutes, back to the filled-in form (English)", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const tag = `reauth-dl-${crypto.randomUUID().slice(0, 8)}`;
  const staff = await createApiStaff(E2E_APP, tag);
  const members = [
    await createNamedMember(STANDIN_PORT, { email: `${tag}-0@example.jp` }),
    await createNamedMember(STANDIN_PORT, { email: `${tag}-1@example.jp` }),
  ];
  await refreshIntoDirectory(E2E_APP, [staff, ...members]);
  await openStaffSessionInBrowser(page, staff, { path: "/en/admin/sign-in/?to=admin-downloads", locale: "en" });

  await passMinutes(page, 11, "en");
  await page.goto("/en/admin/downloads/");
  const form = page.getByRole("form", { name: "Members (users.csv)" });
  await form.getByLabel("Search", { exact: true }).fill(tag);
  await form.getByLabel("Rows", { exact: true }).selectOption("1");
  await form.getByLabel("Rows per page").fill("1");
  await form.getByRole("button").click();
  await expect(page).toHaveURL(/\/en\/admin\/sign-in\/\?mode=confirm&to=%2Fen%2Fadmin%2Fdownloads%2F%3F/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Confirm it is you");
  await confirmStaffInBrowser(page, staff, "en");

  // Back on the downloads page with what was typed, no error: the download now runs.
  await expect(page).toHaveURL(/\/en\/admin\/downloads\/\?/);
  await expect(form.getByLabel("Search", { exact: true })).toHaveValue(tag);
  await expect(form.getByLabel("Rows", { exact: true })).toHaveValue("1");
  await expect(page.locator(".form-field__error")).toHaveCount(0);
  const saved = page.waitForEvent("download");
  await form.getByRole("button").click();
  const file = await readFile(await (await saved).path());
  const [header, ...rows] = parse(file.toString("utf8"), { bom: true }) as string[][];
  expect(header!.slice(0, 2)).toEqual(["sub", "email"]);
  // Every matching member (the staff member's own address starts with the tag too), not a page of one.
  expect(rows.map((row) => row[1]).sort()).toEqual([staff.email, `${tag}-0@example.jp`, `${tag}-1@example.jp`].sort());
});

test("starting an import asks for the password and code after 10 minutes, back to the checked file", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const tag = `reauth-import-${crypto.randomUUID().slice(0, 8)}`;
  const staff = await createApiStaff(E2E_APP, tag);
  await openStaffSessionInBrowser(page, staff, { path: "/admin/sign-in/?to=admin-csv-import" });

  await passMinutes(page, 11);
  await page.goto("/admin/csv-import/");
  // The dry run asks nothing: it creates nobody.
  await page.getByLabel("CSVファイル").setInputFiles({
    name: `${tag}.csv`,
    mimeType: "text/csv",
    buffer: Buffer.from(importCsv([`${tag}@example.jp`])),
  });
  await page.getByRole("button", { name: "チェックする" }).click();
  await expect(page.getByTestId("import-ready")).toContainText("1 行を登録できます");
  const ready = new URL(page.url());
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page).toHaveURL(
    `/admin/sign-in/?${new URLSearchParams({ mode: "confirm", to: `${ready.pathname}${ready.search}` })}`,
  );
  await confirmStaffInBrowser(page, staff);

  await expect(page).toHaveURL(`${ready.pathname}${ready.search}`);
  await expect(page.getByTestId("import-ready")).toContainText(`${tag}.csv`);
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page.getByTestId("toast")).toContainText("インポートを開始しました");
  await expect(page).toHaveURL(/\/admin\/csv-import\/[0-9a-f-]{36}\/$/);
});
