import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember, createStaffAdmin } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { signIn, openStaffSessionInBrowser, setUpStaffAuthenticatorInBrowser } from "../support/sign-in-form";
import { createTestMember } from "../support/test-members";

/**
 * Family names no other test uses, one for each project (js-on and js-off share the server): the search by Japanese
 * name finds only this test's members.
 */
const FAMILY_NAME_WITH_JAVASCRIPT = "山川田中村";
const FAMILY_NAME_WITHOUT_JAVASCRIPT = "林森木本松";

/** A time's month in Japan (UTC+9, no daylight saving time), as the dashboard's charts name months. */
const tokyoMonthOf = (epochMs: number) => new Date(epochMs + 9 * 60 * 60 * 1000).toISOString().slice(0, 7);

async function signedInBrowser(
  browser: Browser,
  member: { email: string; password: string },
  javaScriptEnabled: boolean,
  to: string,
) {
  const context = await browser.newContext({ locale: "ja-JP", javaScriptEnabled });
  const page = await context.newPage();
  await page.goto(`/auth/sign-in/?to=${to}`);
  await signIn(page, member);
  return { context, page };
}

/** Submits the member list's search form with the given fields, the rest left as they are. */
async function search(page: Page, fields: { q?: string; status?: string; locale?: string }) {
  const form = page.getByRole("form", { name: "検索と絞り込み" });
  if (fields.q !== undefined) await form.getByLabel("検索", { exact: true }).fill(fields.q);
  if (fields.status !== undefined) await form.getByLabel("状態").selectOption(fields.status);
  if (fields.locale !== undefined) await form.getByLabel("言語", { exact: true }).selectOption(fields.locale);
  await form.getByRole("button", { name: "検索", exact: true }).click();
}

/** Confirms one of the detail page's actions: its button asks, the panel's button does it. */
async function confirmAction(page: Page, button: string, confirm: string) {
  await page.getByRole("link", { name: button }).click();
  await expect(page.getByTestId("confirm-panel")).toBeVisible();
  await page.getByTestId("confirm-panel").getByRole("button", { name: confirm }).click();
}

test("the admin pages send a visitor to the staff sign-in and come back after it, to the very member's page", async ({
  page,
}) => {
  const admin = await createApiStaff(E2E_APP, "admin-visitor");
  await refreshIntoDirectory(E2E_APP, [admin]);
  await page.goto("/admin/");
  await expect(page).toHaveURL(/\/admin\/sign-in\/\?to=admin$/);
  const memberPage = `/admin/users/${admin.sub}/`;
  await page.goto(memberPage);
  await expect(page).toHaveURL(`/admin/sign-in/?${new URLSearchParams({ to: memberPage }).toString()}`);
  await openStaffSessionInBrowser(page, admin, { path: memberPage });
  await expect(page).toHaveURL(memberPage);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("管理画面");
  await expect(page.getByTestId("member-email")).toHaveText(admin.email);

  // The staff menu marks the section a page belongs to: "/admin/" is the user list alone, not the member's page
  // (a job's page belongs to the CSV import: admin-csv-import.spec.ts).
  const menu = page.getByRole("navigation", { name: "管理メニュー" });
  await expect(menu.locator('[aria-current="page"]')).toHaveCount(0);
  for (const [path, current] of [
    ["/admin/", "ユーザ一覧"],
    ["/admin/downloads/", "各種ダウンロード"],
    ["/admin/csv-import/", "CSVインポート"],
    ["/admin/audit-log/", "操作履歴"],
  ]) {
    await page.goto(path!);
    await expect(menu.locator('[aria-current="page"]')).toHaveText([current!]);
  }
});

test("a staff member without a second factor opens /admin/ and gets in with one password, one set-up and one code", async ({
  page,
}) => {
  const staff = await createStaffAdmin(STANDIN_PORT, "admin-first-visit");
  await page.goto("/admin/users/");
  await expect(page).toHaveURL(/\/admin\/sign-in\/\?to=admin-users$/);
  await setUpStaffAuthenticatorInBrowser(page, staff);
  await expect(page).toHaveURL("/admin/users/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("管理画面");
});

test("the user list opens with the search form, then the list, then the dashboard's figures", async ({ page }) => {
  const admin = await createApiStaff(E2E_APP, "admin-landing");
  await refreshIntoDirectory(E2E_APP, [admin]);
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin" });
  await expect(page).toHaveURL(/\/admin\/$/);
  for (const [path, heading] of [
    [`/admin/?q=${encodeURIComponent(admin.email)}`, "ユーザ一覧"],
    [`/en/admin/?q=${encodeURIComponent(admin.email)}`, "Users"],
  ] as const) {
    await page.goto(path);
    const content = page.locator(".admin-shell__content");
    await expect(content.getByRole("heading", { level: 2 }).first()).toHaveText(heading);
    // In the document's order (what a screen reader and the keyboard meet): the search form, the list, the charts.
    const order = await content.evaluate((element) =>
      [...element.querySelectorAll("form, [data-testid=member-list], figure.admin-chart")].map((found) =>
        found.tagName === "FORM" ? "form" : found.tagName === "TABLE" ? "list" : "chart",
      ),
    );
    expect(order.slice(0, 3), path).toEqual(["form", "list", "chart"]);
    const [form, chart] = [
      await content.locator("form").first().boundingBox(),
      await content.locator("figure.admin-chart").first().boundingBox(),
    ];
    expect(form!.y, path).toBeLessThan(chart!.y);
  }

  // On a 375 px phone the rows are cards, laid out by CSS; the list still reads as a table with a head row and a row
  // per member. Playwright finds roles in the markup, as Chromium keeps them; Safari drops a table's own roles under
  // the cards' display, so the roles must be written out, which the attributes check.
  await page.setViewportSize({ width: 375, height: 800 });
  const list = page.getByRole("table", { name: "Search results" });
  await expect(list.locator("tbody tr")).toHaveCSS("display", "flex");
  await expect(list).toHaveAttribute("role", "table");
  const rows = list.getByRole("row");
  await expect(rows).toHaveCount(2);
  await expect(list.locator("tr:not([role=row])")).toHaveCount(0);
  await expect(rows.first().getByRole("columnheader")).toHaveText([
    "E-mail",
    "Name",
    "Status",
    "Language",
    "Referrer",
    "Signed up",
  ]);
  await expect(rows.nth(1).getByRole("rowheader")).toHaveText(admin.email);
  // Five cells; the staff member has no name, and a phone hides the empty cell.
  await expect(rows.nth(1).getByRole("cell", { includeHidden: true })).toHaveCount(5);
});

test("another staff member's page offers no change to their account, and a forged post of each is refused", async ({
  page,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const admin = await createApiStaff(E2E_APP, "admin-on-staff");
  const colleague = await createStaffAdmin(STANDIN_PORT, "admin-colleague");
  await refreshIntoDirectory(E2E_APP, [admin, colleague]);
  const colleaguePage = `/admin/users/${colleague.sub}/`;
  await openStaffSessionInBrowser(page, admin, {
    path: `/admin/sign-in/?${new URLSearchParams({ to: colleaguePage }).toString()}`,
  });
  await expect(page).toHaveURL(colleaguePage);

  // Only the refresh is offered (on one's own page too); asking to confirm another action shows no panel.
  for (const path of [colleaguePage, `/admin/users/${admin.sub}/`]) {
    await page.goto(path);
    await expect(page.getByTestId("staff-account-notice")).toContainText("AWSコンソール");
    const actions = page.locator(".admin-actions__list a");
    await expect(actions).toHaveText(["Cognito から再取得"]);
    await expect(page.getByLabel("新しいメールアドレス")).toHaveCount(0);
  }
  await page.goto(`${colleaguePage}?confirm=disable`);
  await expect(page.getByTestId("confirm-panel")).toHaveCount(0);

  // A forged post of each change, from the admin's own browser: 403 with the reason, and nothing changed.
  const forged: Record<string, string>[] = [
    { intent: "disable" },
    { intent: "sessions-end" },
    { intent: "two-step-off" },
    { intent: "email-change", email: `taken-over-${crypto.randomUUID().slice(0, 8)}@example.jp` },
  ];
  for (const form of forged) {
    const response = await page.request.post(colleaguePage, { form, maxRedirects: 0 });
    expect(response.status(), form.intent).toBe(403);
    expect(await response.text(), form.intent).toContain("この会員はスタッフです");
  }
  if (javaScriptEnabled) {
    // The same post as a document, as a page older than the colleague's promotion would send it: the page says why.
    await page.goto(colleaguePage);
    await page.evaluate((action) => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = action;
      const intent = Object.assign(document.createElement("input"), {
        type: "hidden",
        name: "intent",
        value: "disable",
      });
      form.append(intent);
      document.body.append(form);
      form.submit();
    }, colleaguePage);
    await expect(page.getByRole("alert")).toContainText("この会員はスタッフです");
  }

  // The colleague still signs in; the refusals are in their audit trail, by the admin.
  const colleagueBrowser = await signedInBrowser(browser, colleague, javaScriptEnabled, "my-profile");
  await expect(colleagueBrowser.page).toHaveURL(/\/my\/profile\/$/);
  await colleagueBrowser.context.close();
  await page.goto(`/admin/audit-log/?targetSub=${colleague.sub}`);
  const refused = page.getByTestId("audit-events").locator("tbody tr", { hasText: "拒否：スタッフのアカウント" });
  await expect(refused).toHaveCount(javaScriptEnabled ? 5 : 4);
  await expect(refused.first()).toContainText(admin.email);
});

test("the member cookie alone opens no staff page: the staff sign-in, in both languages", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "admin-forbidden");
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  for (const [path, signInPath, title] of [
    ["/admin/", "/admin/sign-in/", "管理画面へのログイン"],
    ["/en/admin/audit-log/", "/en/admin/sign-in/", "Log in to the staff area"],
  ] as const) {
    await page.goto(path);
    await expect(page).toHaveURL(new RegExp(`${signInPath.replaceAll("/", "\\/")}\\?to=`));
    await expect(page.getByTestId("staff-sign-in").getByRole("heading", { level: 1 })).toHaveText(title);
    // Prefilled from the member session: the address is the member's.
    await expect(page.getByRole("textbox", { name: /メールアドレス|E-mail address/ })).toHaveValue(member.email);
  }
});

test("staff find a member and fix them: search, filters, paging, refresh, e-mail, sessions, disable, enable, audit log", async ({
  page,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(300_000);
  const tag = `adm${crypto.randomUUID().slice(0, 8)}`;
  const familyName = javaScriptEnabled ? FAMILY_NAME_WITH_JAVASCRIPT : FAMILY_NAME_WITHOUT_JAVASCRIPT;
  const seedingStartedAt = Date.now();
  const admin = await createApiStaff(E2E_APP, `staff-${tag}`);
  const members = [];
  for (const [index, givenName] of ["太郎", "花子", "次郎"].entries()) {
    members.push(
      await createNamedMember(STANDIN_PORT, {
        email: `${tag}-${index}@example.jp`,
        familyName,
        givenName,
        locale: index === 2 ? "en" : "ja",
      }),
    );
  }
  await refreshIntoDirectory(E2E_APP, [admin, ...members]);
  const [target] = members;
  if (!target) throw new Error("no members were made");

  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin" });
  await expect(page).toHaveURL(/\/admin\/$/);

  // The dashboard: four charts, each an image with its numbers in a table (the numbers are checked at the end).
  await expect(page.locator("figure.admin-chart")).toHaveCount(4);
  await expect(page.locator("figure.admin-chart svg[role=img]")).toHaveCount(4);

  // By e-mail prefix; the URL keeps only what was filled in.
  await search(page, { q: tag });
  await expect(page).toHaveURL(new RegExp(`/admin/\\?q=${tag}$`));
  await expect(page.locator("#member-list-count")).toHaveText("3 人が該当");
  await expect(page.getByTestId("member-list").locator("tbody tr")).toHaveCount(3);

  // By Japanese name, family and given name together.
  await search(page, { q: `${familyName} 花子` });
  await expect(page.locator("#member-list-count")).toHaveText("1 人が該当");
  await expect(page.getByTestId("member-list")).toContainText(`${tag}-1@example.jp`);

  // Filters.
  await search(page, { q: familyName, locale: "en" });
  await expect(page.locator("#member-list-count")).toHaveText("1 人が該当");
  await expect(page.getByTestId("member-list")).toContainText(`${tag}-2@example.jp`);
  await search(page, { locale: "", status: "disabled" });
  await expect(page.locator("#member-list-count")).toHaveText("0 人が該当");

  // An invalid parameter is shown by its field; the page still works.
  const invalid = await page.goto(`/admin/?q=${tag}&status=sleeping`);
  expect(invalid?.status()).toBe(400);
  await expect(page.getByRole("alert")).toContainText("検索条件に誤りがあります");
  await expect(page.locator("figure.admin-chart")).toHaveCount(4);

  // Pages of two, forward and back, by keyset cursors.
  await page.goto(`/admin/?q=${tag}&limit=2`);
  const rows = page.getByTestId("member-list").locator("tbody tr");
  await expect(rows).toHaveCount(2);
  const firstPage = await rows.allTextContents();
  await page.getByRole("link", { name: "次のページ" }).click();
  await expect(rows).toHaveCount(1);
  await expect(page.locator("#member-list-count")).toHaveText("3 人が該当");
  await page.getByRole("link", { name: "前のページ" }).click();
  await expect(rows).toHaveCount(2);
  expect(await rows.allTextContents()).toEqual(firstPage);

  // Open the member by e-mail from the open-a-member form.
  await page.goto("/admin/users/");
  await page.getByLabel("sub またはメールアドレス").fill(target.email);
  await page.getByRole("button", { name: "開く" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/users/${target.sub}/$`));
  await expect(page.getByTestId("member-email")).toHaveText(target.email);

  // Refresh from Cognito.
  await confirmAction(page, "Cognito から再取得", "再取得する");
  await expect(page.getByTestId("toast")).toContainText("Cognito から再取得しました");

  // Change the e-mail: review old → new, then confirm; the member signs in with the new address.
  const newEmail = `${tag}-new@example.jp`;
  await page.getByLabel("新しいメールアドレス").fill(newEmail);
  await page.getByRole("button", { name: "確認へ進む" }).click();
  await expect(page.getByTestId("email-change-review")).toContainText(target.email);
  await expect(page.getByTestId("email-change-review")).toContainText(newEmail);
  await page.getByTestId("email-change-review").getByRole("button", { name: "変更する" }).click();
  await expect(page.getByTestId("toast")).toContainText("メールアドレスを変更しました");
  await expect(page.getByTestId("member-email")).toHaveText(newEmail);
  const memberBrowser = await signedInBrowser(
    browser,
    { email: newEmail, password: target.password },
    javaScriptEnabled,
    "my-profile",
  );
  await expect(memberBrowser.page).toHaveURL(/\/my\/profile\/$/);

  // End all sessions: the member's browser is signed out on its next page.
  await confirmAction(page, "すべてのセッションを終了", "終了する");
  await expect(page.getByTestId("toast")).toContainText("すべてのセッションを終了しました");
  await memberBrowser.page.goto("/my/profile/");
  await expect(memberBrowser.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);

  // Disable: sign-in fails. Enable: it works again.
  await confirmAction(page, "アカウントを無効化", "無効化する");
  await expect(page.getByTestId("toast")).toContainText("アカウントを無効化しました");
  await expect(page.getByTestId("member-status")).toHaveText("無効化");
  await signIn(memberBrowser.page, { email: newEmail, password: target.password });
  await expect(memberBrowser.page.getByRole("alert")).toContainText("ログインに失敗しました");
  await confirmAction(page, "アカウントを有効化", "有効化する");
  await expect(page.getByTestId("toast")).toContainText("アカウントを有効化しました");
  await signIn(memberBrowser.page, { email: newEmail, password: target.password });
  await expect(memberBrowser.page).toHaveURL(/\/my\/profile\/$/);
  await memberBrowser.context.close();

  // The audit log shows each action, by the admin, on the member.
  await page.getByRole("link", { name: "このユーザの操作履歴をすべて見る" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/audit-log/\\?targetSub=${target.sub}$`));
  // (The setup's refresh through the admin API is in it too.)
  const events = page.getByTestId("audit-events").locator("tbody tr");
  for (const action of ["Cognito から再取得", "メールアドレス変更", "セッション終了", "無効化", "有効化"]) {
    await expect(events.filter({ hasText: action }).first()).toContainText(admin.email);
  }
  await expect(page.getByTestId("audit-events")).toContainText(newEmail);

  // The dashboard counts the seeded members (the e2e server computes its figures on every view): two active
  // Japanese-speaking members and one English-speaking one of this test at least; others' members add to them.
  const membersIn = async (chart: number, row: string) => {
    const cell = page.locator("figure.admin-chart").nth(chart).locator("tbody tr", { hasText: row }).locator("td");
    return Number((await cell.first().textContent())?.replaceAll(",", ""));
  };
  await page.goto("/admin/");
  expect(await membersIn(2, "日本語")).toBeGreaterThanOrEqual(2);
  expect(await membersIn(2, "英語")).toBeGreaterThanOrEqual(1);
  expect(await membersIn(3, "ID（直接）")).toBeGreaterThanOrEqual(3);
  // The members signed up in one month, or in two if Japan's month turned since the seeding began.
  let signedUpThisTest = 0;
  for (const month of new Set([tokyoMonthOf(seedingStartedAt), tokyoMonthOf(Date.now())])) {
    signedUpThisTest += await membersIn(0, month);
  }
  expect(signedUpThisTest).toBeGreaterThanOrEqual(3);
});
