import type { Browser } from "@playwright/test";
import { expect, onlyWithoutJavaScript, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { fillProfileFields } from "../support/profile-form";
import { createTestMember } from "../support/test-members";
import { browserSigningIn, signIn } from "../support/sign-in-form";

async function signedInContext(
  browser: Browser,
  member: { email: string; password: string },
  javaScriptEnabled: boolean,
) {
  const opened = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(opened.page).toHaveURL(/\/my\/profile\/$/);
  return opened;
}

test("a new password made of the name in the member's profile is refused, saying why (English)", async ({ page }) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "name-password");
  await page.goto("/en/my/profile/edit/");
  await signIn(page, member, "en");
  await expect(page).toHaveURL(/\/en\/my\/profile\/edit\/$/);
  await fillProfileFields(page, {
    familyName: "Quaxwoldt",
    givenName: "Zebediah",
    birthYear: "1975",
    country: "GB",
    region: "London",
    occupation: "academic",
    organization: "University",
  });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);

  await page.goto("/en/my/password/edit/");
  const newPassword = page.getByLabel("New password");
  await page.getByLabel("Current password").fill(member.password);
  await newPassword.fill("quaxwoldtzebediah75");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(newPassword).toHaveAccessibleDescription(/A password made from your e-mail address or name/);
  // Neither password is sent back.
  await expect(page.getByLabel("Current password")).toHaveValue("");
  await expect(newPassword).toHaveValue("");
});

test("the account pages are for members only", async ({ page }) => {
  await page.goto("/my/password/edit/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-password-edit$/);
  await page.goto("/en/my/devices/");
  await expect(page).toHaveURL(/\/en\/auth\/sign-in\/\?to=my-devices$/);
});

test("changing the password: a wrong current password is refused, then the other browsers are signed out", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "password-change");
  const newPassword = "a-brand-new-passphrase";
  const first = await signedInContext(browser, member, javaScriptEnabled);
  const second = await signedInContext(browser, member, javaScriptEnabled);
  const page = first.page;

  await page.goto("/my/password/edit/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("パスワード変更");
  await expect(page.getByTestId("other-devices-notice")).toContainText(
    "このブラウザ以外のデバイスはすべてログアウトされます",
  );

  await page.getByLabel("現在のパスワード").fill("not-my-password");
  await page.getByLabel("新しいパスワード").fill(newPassword);
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expect(page.locator("main")).toContainText("現在のパスワードが一致しません");
  // Neither password is ever shown back.
  await expect(page.getByLabel("現在のパスワード")).toHaveValue("");
  await expect(page.getByLabel("新しいパスワード")).toHaveValue("");
  expect(await page.content()).not.toContain(newPassword);

  // Too short a new password never reaches Cognito.
  await page.getByLabel("現在のパスワード").fill(member.password);
  await page.getByLabel("新しいパスワード").fill("short");
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  // The message itself, not the hint ("8文字以上（256文字まで）"), or the next fill could race the reply.
  await expect(page.locator("main")).toContainText("8文字以上で入力してください");

  // Too easy to guess: common, or made of the member's address; said on the new password's field.
  const newPasswordField = page.getByLabel("新しいパスワード");
  await page.getByLabel("現在のパスワード").fill(member.password);
  await newPasswordField.fill("password1234");
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expect(newPasswordField).toHaveAccessibleDescription(/よく使われているパスワードや流出したパスワードに近く/);
  await expect(page.getByLabel("現在のパスワード")).toHaveValue("");
  await page.getByLabel("現在のパスワード").fill(member.password);
  await newPasswordField.fill(`${member.email.split("@")[0]}2024`);
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expect(newPasswordField).toHaveAccessibleDescription(/メールアドレスやお名前から作ったパスワード/);

  await page.getByLabel("現在のパスワード").fill(member.password);
  await page.getByLabel("新しいパスワード").fill(newPassword);
  await page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("toast")).toContainText("パスワードを変更しました");
  // This browser stays signed in.
  await page.goto("/my/devices/");
  await expect(page.getByTestId("device-count")).toHaveText("ログイン中のデバイス：1台");

  // The other browser is signed out on its next request.
  await second.page.goto("/my/profile/");
  await expect(second.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);

  // The old password no longer works; the new one does.
  await signIn(second.page, member);
  await expect(second.page.getByRole("alert")).toContainText("ログインに失敗しました");
  await signIn(second.page, { email: member.email, password: newPassword });
  await expect(second.page).toHaveURL(/\/my\/profile\/$/);
  await expect(second.page.getByTestId("email")).toHaveText(member.email);

  await first.context.close();
  await second.context.close();
});

test("devices: the member deactivates another browser, which is signed out on its next request", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "devices-page");
  const first = await signedInContext(browser, member, javaScriptEnabled);
  const second = await signedInContext(browser, member, javaScriptEnabled);
  const page = first.page;

  await page.goto("/my/devices/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("デバイス管理");
  await expect(page.locator("main")).toContainText("ログインできるデバイスは3台までです（ブラウザごとに認証されます）");
  await expect(page.getByTestId("device-count")).toHaveText("ログイン中のデバイス：2台");
  // This browser is marked and offers no Deactivate button; the other one does.
  await expect(page.locator("main").getByText("このブラウザ", { exact: true })).toHaveCount(1);
  const deactivate = page.getByRole("button", { name: /を無効にする$/ });
  await expect(deactivate).toHaveCount(1);
  // The toast names the device as its row does.
  const otherRow = page.locator(".device-table tbody tr").filter({ has: deactivate });
  const otherName = (await otherRow.locator(".card-table__device").textContent()) ?? "";
  expect(otherName).toMatch(/^.+ の .+$/);

  await deactivate.click();
  await expect(page).toHaveURL(/\/my\/devices\/$/);
  await expect(page.getByTestId("toast")).toContainText(`デバイス ${otherName} を無効にしました`);
  await expect(page.getByTestId("device-count")).toHaveText("ログイン中のデバイス：1台");

  await second.page.goto("/my/profile/");
  await expect(second.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);

  // English, too.
  await page.goto("/en/my/devices/");
  await expect(page.locator("main")).toContainText("up to 3 devices (authentication per browser)");
  await expect(page.getByTestId("device-count")).toHaveText("Devices logged in: 1");

  await first.context.close();
  await second.context.close();
});

test("another member's session cannot be deactivated", async ({ browser, javaScriptEnabled }) => {
  onlyWithoutJavaScript();
  test.setTimeout(60_000);
  const alice = await createTestMember(STANDIN_PORT, "devices-alice");
  const bob = await createTestMember(STANDIN_PORT, "devices-bob");
  const aliceBrowser = await signedInContext(browser, alice, javaScriptEnabled);
  const bobBrowser = await signedInContext(browser, bob, javaScriptEnabled);
  // Bob's own session id, as his devices page would post it.
  const bobSecond = await signedInContext(browser, bob, javaScriptEnabled);
  await bobSecond.page.goto("/my/devices/");
  const bobDeviceId = await bobSecond.page.locator('input[name="device"]').first().getAttribute("value");
  expect(bobDeviceId).toBeTruthy();

  const answer = await aliceBrowser.context.request.post("/my/devices/", {
    form: { intent: "deactivate", device: bobDeviceId! },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(302);
  await aliceBrowser.page.goto("/my/devices/");
  await expect(aliceBrowser.page.getByTestId("toast")).toContainText("デバイスの無効化に失敗しました");

  await bobBrowser.page.goto("/my/profile/");
  await expect(bobBrowser.page).toHaveURL(/\/my\/profile\/$/);
  for (const each of [aliceBrowser, bobBrowser, bobSecond]) await each.context.close();
});
