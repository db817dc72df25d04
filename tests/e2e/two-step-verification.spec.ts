import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember, firstAuthenticatorCode, nextAuthenticatorCode } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { browserSigningIn, signIn, openStaffSessionInBrowser } from "../support/sign-in-form";
import { createTestMember } from "../support/test-members";
import { totpCode, wrongTotpCode } from "../support/totp-codes";

/**
 * 2-step verification with an authenticator app, as a member sees it with JavaScript on and off: setting it up on
 * /my/security/ (the codes computed from the key the page shows, as an app would), the recovery codes shown once,
 * then signing in with a code, with a recovery code, and refused when either is used again; staff turning it off.
 */

/** The set-up page's key, from "Set up" on: the page must show it as text. */
async function readKey(page: Page): Promise<string> {
  await expect(page.getByTestId("authenticator-key")).toBeVisible();
  const key = (await page.getByTestId("authenticator-key").textContent()) ?? "";
  expect(key).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
  return key;
}

/** The recovery codes the page shows once. */
async function readRecoveryCodes(page: Page): Promise<string[]> {
  const items = page.getByTestId("recovery-codes").locator("li");
  await expect(items).toHaveCount(10);
  return items.allTextContents();
}

test("a member turns on 2-step verification, signs in with a code and with a recovery code, each refused the second time", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const member = await createTestMember(STANDIN_PORT, "two-step");
  const first = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(first.page).toHaveURL(/\/my\/profile\/$/);
  const page = first.page;

  await page.goto("/my/security/");
  await expect(page.getByTestId("two-step-summary")).toContainText("無効");
  await page.getByRole("link", { name: "2段階認証の設定" }).click();
  await expect(page).toHaveURL(/\/my\/security\/authenticator\/$/);
  await page.getByRole("button", { name: "設定を始める" }).click();
  await expect(page.getByRole("img", { name: "認証アプリに登録するためのQRコード" }).locator("svg")).toBeVisible();
  const key = await readKey(page);

  // A code from long ago is refused, and the field is emptied.
  await page.getByLabel("認証コード（6桁）").fill(totpCode(key, { steps: -20 }));
  await page.getByRole("button", { name: "有効にする" }).click();
  await expect(page.locator("main")).toContainText("認証コードが一致しません");
  await expect(page.getByLabel("認証コード（6桁）")).toHaveValue("");
  // The same key on the page still: no second AssociateSoftwareToken.
  expect(await readKey(page)).toBe(key);

  await page.getByLabel("認証コード（6桁）").fill(totpCode(key));
  await page.getByRole("button", { name: "有効にする" }).click();
  const recoveryCodes = await readRecoveryCodes(page);
  const download = page.getByRole("link", { name: "テキストファイルでダウンロード" });
  await expect(download).toHaveAttribute("download", "recovery-codes.txt");
  const href = decodeURIComponent((await download.getAttribute("href")) ?? "");
  for (const code of recoveryCodes) expect(href).toContain(code);
  // The copy button needs JavaScript, and is only there with it.
  await expect(page.getByRole("button", { name: "コピー" })).toHaveCount(javaScriptEnabled ? 1 : 0);
  await page.getByRole("link", { name: "保管しました" }).click();
  await expect(page).toHaveURL(/\/my\/security\/$/);
  await expect(page.getByTestId("two-step-summary")).toContainText("有効");
  await expect(page.getByTestId("sign-in-methods")).toContainText("リカバリーコード残り10個");
  await expect(page.locator("main")).toContainText("2段階認証を有効化");

  // Another browser: the password, then the code step; the code of the step after the set-up's.
  const code = totpCode(key, { steps: 1 });
  const second = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(second.page).toHaveURL(/\/auth\/sign-in\/two-step\/\?to=my-profile$/);
  const codeField = second.page.getByLabel("認証コード（6桁）");
  await expect(codeField).toHaveAttribute("autocomplete", "one-time-code");
  await expect(codeField).toHaveAttribute("inputmode", "numeric");
  // The password alone learns nothing of the account's recovery codes.
  await expect(second.page.getByTestId("recovery-codes-left")).toHaveCount(0);
  await codeField.fill(code);
  await second.page.getByRole("button", { name: "ログイン" }).click();
  await expect(second.page).toHaveURL(/\/my\/profile\/$/);

  // The same code in the same window, from a third browser: refused.
  const third = await browserSigningIn(browser, member, javaScriptEnabled);
  await third.page.getByLabel("認証コード（6桁）").fill(code);
  await third.page.getByRole("button", { name: "ログイン" }).click();
  await expect(third.page.locator("main")).toContainText("認証コードが一致しません");
  await expect(third.page).toHaveURL(/\/auth\/sign-in\/two-step\//);

  // A recovery code instead, with the password again: signed in; the same recovery code later is refused.
  await third.page.getByRole("link", { name: "認証アプリを使えない場合：リカバリーコードを使う" }).click();
  await third.page.getByLabel("リカバリーコード").fill(recoveryCodes[0]!);
  await third.page.getByLabel("パスワード").fill(member.password);
  await third.page.getByRole("button", { name: "ログイン" }).click();
  await expect(third.page).toHaveURL(/\/my\/profile\/$/);

  const fourth = await browserSigningIn(browser, member, javaScriptEnabled);
  await fourth.page.getByRole("link", { name: "認証アプリを使えない場合：リカバリーコードを使う" }).click();
  await expect(fourth.page.getByTestId("recovery-codes-left")).toHaveCount(0);
  await fourth.page.getByLabel("リカバリーコード").fill(recoveryCodes[0]!);
  await fourth.page.getByLabel("パスワード").fill(member.password);
  await fourth.page.getByRole("button", { name: "ログイン" }).click();
  await expect(fourth.page.locator("main")).toContainText("リカバリーコードまたはパスワードが正しくありません");
  await expect(fourth.page.getByLabel("パスワード")).toHaveValue("");

  await page.goto("/my/security/");
  await expect(page.locator("main")).toContainText("リカバリーコードでログイン");
  await expect(page.getByTestId("sign-in-methods")).toContainText("リカバリーコード残り9個");
  for (const opened of [first, second, third, fourth]) await opened.context.close();
});

test("in English: set up, the code step, and turning it off", async ({ browser, javaScriptEnabled }) => {
  test.setTimeout(120_000);
  const member = await createTestMember(STANDIN_PORT, "two-step-en");
  const context = await browser.newContext({ locale: "en-US", javaScriptEnabled });
  const page = await context.newPage();
  await page.goto("/en/auth/sign-in/?to=my-profile");
  await signIn(page, member, "en");
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);

  await page.goto("/en/my/security/authenticator/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("2-step verification (authenticator app)");
  await page.getByRole("button", { name: "Set up" }).click();
  const key = await readKey(page);
  await page.getByLabel("Code (6 digits)").fill(totpCode(key));
  await page.getByRole("button", { name: "Turn on" }).click();
  await readRecoveryCodes(page);
  await expect(page.getByRole("heading", { name: "Recovery codes" })).toBeVisible();

  const other = await browser.newContext({ locale: "en-US", javaScriptEnabled });
  const signingIn = await other.newPage();
  await signingIn.goto("/en/auth/sign-in/?to=my-profile");
  await signIn(signingIn, member, "en");
  await expect(signingIn).toHaveURL(/\/en\/auth\/sign-in\/two-step\/\?to=my-profile$/);
  await expect(signingIn.getByTestId("recovery-codes-left")).toHaveCount(0);
  await signingIn.getByLabel("Code (6 digits)").fill(totpCode(key, { steps: 1 }));
  await signingIn.getByRole("button", { name: "Log in", exact: true }).click();
  await expect(signingIn).toHaveURL(/\/en\/my\/profile\/$/);

  await page.goto("/en/my/security/authenticator/");
  await expect(page.getByTestId("recovery-codes-left")).toHaveText("Unused recovery codes: 10");
  await page.getByRole("button", { name: "Turn off 2-step verification" }).click();
  await expect(page).toHaveURL(/\/en\/my\/security\/$/);
  await expect(page.getByTestId("toast")).toContainText("2-step verification is off");
  await expect(page.getByTestId("two-step-summary")).toContainText("Off");
  await expect(page.locator("main")).toContainText("2-step verification turned off");
  await other.close();
  await context.close();
});

/** Turns on 2-step verification for the member signed in on `request`, through the pages' posts; answers the key. */
/**
 * Turns the authenticator app on with the previous time step's code, so that the test's next codes (the current
 * step's, then the next one's) need no wait for the clock (nextAuthenticatorCode).
 */
async function turnOnThroughPosts(request: APIRequestContext): Promise<{ totpSecret: string; nextStep: number }> {
  const started = await request.post("/my/security/authenticator/", { form: { intent: "start" }, maxRedirects: 0 });
  expect(started.status()).toBe(302);
  const html = await (await request.get("/my/security/authenticator/")).text();
  const key = /data-testid="authenticator-key">([A-Z2-7 ]+)</.exec(html)?.[1];
  if (!key) throw new Error("the set-up page showed no key");
  const totpSecret = key.replace(/\s+/g, "");
  const { code, nextStep } = await firstAuthenticatorCode(totpSecret);
  const confirmed = await request.post("/my/security/authenticator/", { form: { intent: "confirm", code } });
  expect(confirmed.status()).toBe(200);
  return { totpSecret, nextStep };
}

test("staff turn off a member's 2-step verification after the confirmation step; the member signs in with the password alone", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const member = await createNamedMember(STANDIN_PORT, {
    email: `two-step-staff-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  const memberBrowser = await browser.newContext({ locale: "ja-JP" });
  const signedIn = await memberBrowser.request.post("/auth/sign-in/", {
    form: { intent: "sign-in", email: member.email, password: member.password },
    maxRedirects: 0,
  });
  expect(signedIn.status()).toBe(302);
  await turnOnThroughPosts(memberBrowser.request);

  const admin = await createApiStaff(E2E_APP, "two-step-admin");
  await refreshIntoDirectory(E2E_APP, [admin, member]);
  const context = await browser.newContext({ locale: "ja-JP", javaScriptEnabled });
  const page = await context.newPage();
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin" });
  await expect(page).toHaveURL(/\/admin\/$/);
  await page.goto(`/admin/users/${member.sub}/`);
  await page.getByRole("link", { name: "2段階認証を無効にする" }).click();
  await expect(page.getByTestId("confirm-panel")).toContainText("本人確認を済ませてから");
  await page.getByTestId("confirm-panel").getByRole("button", { name: "無効にする" }).click();
  await expect(page.getByTestId("toast")).toContainText("2段階認証を無効にしました");
  await expect(page.getByRole("link", { name: "2段階認証を無効にする" })).toHaveCount(0);

  const again = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(again.page).toHaveURL(/\/my\/profile\/$/);
  await again.page.goto("/my/security/");
  await expect(again.page.getByTestId("two-step-summary")).toContainText("無効");
  await expect(again.page.locator("main")).toContainText("スタッフが2段階認証を無効化");
  for (const opened of [memberBrowser, context, again.context]) await opened.close();
});

/** A new browser signed in with the password alone (before 2-step verification is on), JavaScript on or off. */
async function signedInBrowser(
  browser: Browser,
  member: { email: string; password: string },
  options: { locale: "ja" | "en"; javaScriptEnabled: boolean },
) {
  const context = await browser.newContext({
    locale: options.locale === "ja" ? "ja-JP" : "en-US",
    javaScriptEnabled: options.javaScriptEnabled,
  });
  const page = await context.newPage();
  const prefix = options.locale === "ja" ? "" : "/en";
  await page.goto(`${prefix}/auth/sign-in/?to=my-profile`);
  await signIn(page, member, options.locale);
  await expect(page).toHaveURL(new RegExp(`${prefix}/my/profile/$`));
  return { context, page };
}

const sessionCookieOf = async (context: BrowserContext) =>
  (await context.cookies()).find((cookie) => cookie.name === "id_session")?.value;

test("a member with 2-step verification changes their password with the app's code: this browser signs in again with the next code, the others are out", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const member = await createTestMember(STANDIN_PORT, "two-step-password");
  const here = await signedInBrowser(browser, member, { locale: "ja", javaScriptEnabled });
  const elsewhere = await signedInBrowser(browser, member, { locale: "ja", javaScriptEnabled });
  const app = await turnOnThroughPosts(here.context.request);
  const page = here.page;

  await page.goto("/my/password/edit/");
  const codeField = page.getByLabel("認証アプリのコード（6桁）");
  await expect(codeField).toHaveAttribute("autocomplete", "one-time-code");
  await expect(codeField).toHaveAccessibleDescription(/2段階認証をお使いのため/);
  const newPassword = "amber-thicket-rowing-93";
  // Without the code nothing changes: said on the code field, no password shown back.
  await page.getByLabel("現在のパスワード").fill(member.password);
  await page.getByLabel("新しいパスワード").fill(newPassword);
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expect(codeField).toHaveAccessibleDescription(/認証コードを入力してください/);
  await expect(page.getByLabel("新しいパスワード")).toHaveValue("");

  const before = await sessionCookieOf(here.context);
  await page.getByLabel("現在のパスワード").fill(member.password);
  await page.getByLabel("新しいパスワード").fill(newPassword);
  await codeField.fill(await nextAuthenticatorCode(app));
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  // The code was checked before the change and cannot be used twice: this browser's sign-in with the new password
  // waits at the code step for the app's next code, told why.
  await expect(page).toHaveURL(/\/auth\/sign-in\/two-step\/\?to=my-profile$/);
  await expect(page.getByTestId("toast")).toContainText("パスワードを変更し、ほかの端末からログアウトしました");
  await page.getByLabel("認証コード（6桁）").fill(await nextAuthenticatorCode(app));
  await page.getByRole("button", { name: "ログイン" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  // Signed in again with the new password and the code: a new sign-in's tokens, not the old ones left to expire.
  expect(await sessionCookieOf(here.context)).not.toBe(before);
  await page.goto("/my/security/");
  await expect(page).toHaveURL(/\/my\/security\/$/);

  await elsewhere.page.goto("/my/profile/");
  await expect(elsewhere.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
  await here.context.close();
  await elsewhere.context.close();
});

test("in English: a wrong code changes nothing, and says so on the code field", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const member = await createTestMember(STANDIN_PORT, "two-step-password-en");
  const { context, page } = await signedInBrowser(browser, member, { locale: "en", javaScriptEnabled });
  const { totpSecret } = await turnOnThroughPosts(context.request);

  await page.goto("/en/my/password/edit/");
  const codeField = page.getByLabel("Code from your authenticator app (6 digits)");
  await expect(codeField).toHaveAccessibleDescription(/You use 2-step verification/);
  await page.getByLabel("Current password").fill(member.password);
  await page.getByLabel("New password").fill("amber-thicket-rowing-93");
  await codeField.fill(wrongTotpCode(totpSecret));
  await page.getByRole("button", { name: "Change password" }).click();
  // Checked before the change: the page says so on the code field and the member stays signed in, password as it was.
  await expect(page).toHaveURL(/\/en\/my\/password\/edit\/$/);
  await expect(codeField).toHaveAttribute("aria-invalid", "true");
  await page.goto("/en/my/profile/");
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);
  await context.close();
});
