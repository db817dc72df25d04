import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { createTestMember } from "../support/test-members";
import { passMinutes } from "../support/session-clock";
import { browserSigningIn } from "../support/sign-in-form";

test("the e-mail change asks for the password again after 10 minutes and keeps the typed address", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "reauth-email");
  const { context, page } = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  const newEmail = `reauth-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  await passMinutes(page, 11);
  await page.goto("/my/email/edit/");
  await page.getByLabel("新しいメールアドレス").fill(newEmail);
  await page.getByRole("button", { name: "確認メールを送信する" }).click();

  await expect(page).toHaveURL(/\/my\/reauthentication\/\?to=%2Fmy%2Femail%2Fedit%2F$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("パスワードの確認");
  await page.getByLabel("パスワード").fill("not-my-password");
  await page.getByRole("button", { name: "確認して続ける" }).click();
  await expect(page.locator("main")).toContainText("現在のパスワードが一致しません");
  await expect(page.getByLabel("パスワード")).toHaveValue("");
  expect(await page.content()).not.toContain("not-my-password");

  await page.getByLabel("パスワード").fill(member.password);
  await page.getByRole("button", { name: "確認して続ける" }).click();
  await expect(page).toHaveURL(/\/my\/email\/edit\/$/);
  await expect(page.getByLabel("新しいメールアドレス")).toHaveValue(newEmail);
  expect(await page.content()).not.toContain(member.password);

  // Within the 10 minutes now: the change goes ahead.
  await page.getByRole("button", { name: "確認メールを送信する" }).click();
  await expect(page.getByTestId("email-change-sent")).toContainText("確認メールを送信しました");
  await context.close();
});

test("in English: nine minutes on, no password step; eleven minutes on, the English password step and back", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "reauth-english");
  const { context, page } = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  const newEmail = `reauth-en-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  await passMinutes(page, 9);
  await page.goto("/en/my/email/edit/");
  await page.getByLabel("New e-mail address").fill(`not-asked-${crypto.randomUUID().slice(0, 8)}@example.jp`);
  await page.getByRole("button", { name: "Send confirmation mail" }).click();
  await expect(page.getByTestId("email-change-sent")).toBeVisible();

  await passMinutes(page, 2);
  await page.goto("/en/my/email/edit/");
  await page.getByLabel("New e-mail address").fill(newEmail);
  await page.getByRole("button", { name: "Send confirmation mail" }).click();
  await expect(page).toHaveURL(/\/en\/my\/reauthentication\/\?to=%2Fen%2Fmy%2Femail%2Fedit%2F$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Confirm your password");
  await page.getByLabel("Password").fill(member.password);
  await page.getByRole("button", { name: "Confirm and continue" }).click();
  await expect(page).toHaveURL(/\/en\/my\/email\/edit\/$/);
  await expect(page.getByLabel("New e-mail address")).toHaveValue(newEmail);
  await context.close();
});
