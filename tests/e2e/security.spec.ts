import type { Browser } from "@playwright/test";
import { expect, onlyWithoutJavaScript, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { createTestMember } from "../support/test-members";
import { browserSigningIn } from "../support/sign-in-form";

async function signedInContext(
  browser: Browser,
  member: { email: string; password: string },
  javaScriptEnabled: boolean,
) {
  const opened = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(opened.page).toHaveURL(/\/my\/profile\/$/);
  return opened;
}

test("security: both sign-ins are listed, and 'This wasn't me' ends exactly the other browser and leads to the password change", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "security-page");
  const first = await signedInContext(browser, member, javaScriptEnabled);
  const second = await signedInContext(browser, member, javaScriptEnabled);
  const page = first.page;

  await page.goto("/my/security/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("セキュリティと最近のアクティビティ");
  const signIns = page.locator(".activity-list__item").filter({ hasText: "ログイン" });
  await expect(signIns).toHaveCount(2);
  // This browser is marked; the other one is live and offers "This wasn't me", the only such button.
  await expect(page.locator("main").getByText("このブラウザ", { exact: true })).toHaveCount(1);
  const notMe = page.getByRole("button", { name: /からのログインに心当たりがない$/ });
  await expect(notMe).toHaveCount(1);
  // The devices page and this one link to each other.
  await page.getByRole("link", { name: /デバイス管理で確認できます/ }).click();
  await expect(page).toHaveURL(/\/my\/devices\/$/);
  await page.getByRole("link", { name: /セキュリティで確認できます/ }).click();
  await expect(page).toHaveURL(/\/my\/security\/$/);

  await page.getByRole("button", { name: /からのログインに心当たりがない$/ }).click();
  await expect(page).toHaveURL(/\/my\/password\/edit\/$/);
  await expect(page.getByTestId("toast")).toContainText("のログインを終了しました");

  // The other browser is signed out on its next request; this one stays signed in.
  await second.page.goto("/my/profile/");
  await expect(second.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
  await page.goto("/my/profile/");
  await expect(page).toHaveURL(/\/my\/profile\/$/);

  // English: the ended sign-in is listed, no longer live.
  await page.goto("/en/my/security/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Security and recent activity");
  await expect(page.locator(".activity-list")).toContainText("Login ended as not yours");
  await expect(page.getByRole("button", { name: /wasn't me$/ })).toHaveCount(0);

  await first.context.close();
  await second.context.close();
});

test("security: 'This wasn't me' with another member's session id does nothing to them", async ({
  browser,
  javaScriptEnabled,
}) => {
  onlyWithoutJavaScript();
  test.setTimeout(60_000);
  const alice = await createTestMember(STANDIN_PORT, "security-alice");
  const bob = await createTestMember(STANDIN_PORT, "security-bob");
  const aliceBrowser = await signedInContext(browser, alice, javaScriptEnabled);
  const bobBrowser = await signedInContext(browser, bob, javaScriptEnabled);
  const bobSecond = await signedInContext(browser, bob, javaScriptEnabled);
  await bobSecond.page.goto("/my/security/");
  const bobSessionId = await bobSecond.page.locator('input[name="device"]').first().getAttribute("value");
  expect(bobSessionId).toBeTruthy();

  const answer = await aliceBrowser.context.request.post("/my/security/", {
    form: { intent: "not-me", device: bobSessionId! },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(302);
  expect(answer.headers()["location"]).toBe("/my/security/");

  await bobBrowser.page.goto("/my/profile/");
  await expect(bobBrowser.page).toHaveURL(/\/my\/profile\/$/);
  for (const each of [aliceBrowser, bobBrowser, bobSecond]) await each.context.close();
});
