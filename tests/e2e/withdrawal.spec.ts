import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { createTestMember } from "../support/test-members";
import { signIn } from "../support/sign-in-form";

test("the cancellation page is for members only", async ({ page }) => {
  await page.goto("/my/withdrawal/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-withdrawal$/);
});

test("cancelling: form, confirmation, a wrong password refused, then the account is gone and the address free", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const member = await createTestMember(STANDIN_PORT, "withdrawal");
  await page.goto("/auth/sign-in/?to=my-withdrawal");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/withdrawal\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("退会");
  const notices = page.getByTestId("withdrawal-notices");
  await expect(notices).toContainText("残りの利用期間は失われます");
  await expect(notices).toContainText("1営業日以内");
  // Word joiners keep 13か月間 on one line (docs/decisions.md, "Line breaking"); the browser's find ignores them.
  await expect(notices).toContainText("13\u2060か\u2060月\u2060間");

  // Nothing chosen: the select; "other" then asks for the specific reason.
  await page.getByRole("button", { name: "確認画面へ進む" }).click();
  await expect(page.locator(".error-list").getByText("選択してください")).toBeVisible();
  await page.getByLabel("退会理由").selectOption("other");
  await page.getByRole("button", { name: "確認画面へ進む" }).click();
  await expect(page.getByText("こちらに入力してください")).toBeVisible();
  await expect(page.getByLabel("退会理由")).toHaveValue("other");
  await page.getByLabel("その他の理由").fill("海外に転居するため");
  await page.getByRole("button", { name: "確認画面へ進む" }).click();

  // The confirmation asks for the disclaimer agreement, then the password (the spec's order).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("退会の確認");
  await expect(page.getByTestId("withdrawal-summary")).toContainText("その他: 海外に転居するため");
  const disclaimer = page.getByLabel("上記の注意事項を確認し、同意します");
  const confirmFields = page.locator("form").filter({ has: disclaimer }).locator("input:not([type=hidden])");
  await expect(confirmFields.first()).toHaveAttribute("name", "agreeDisclaimer");
  await expect(confirmFields.nth(1)).toHaveAttribute("name", "password");
  await page.getByLabel("パスワード").fill(member.password);
  await page.getByRole("button", { name: "退会する" }).click();
  await expect(page.getByText("同意してください")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("退会の確認");
  await expect(page.getByTestId("withdrawal-summary")).toContainText("その他: 海外に転居するため");

  await page.getByLabel("上記の注意事項を確認し、同意します").check();
  await page.getByLabel("パスワード").fill("not-my-password");
  await page.getByRole("button", { name: "退会する" }).click();
  await expect(page.locator("main")).toContainText("パスワードが一致しません");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("退会の確認");
  await expect(page.getByLabel("パスワード")).toHaveValue("");

  await page.getByLabel("上記の注意事項を確認し、同意します").check();
  await page.getByLabel("パスワード").fill(member.password);
  await page.getByRole("button", { name: "退会する" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("toast")).toContainText("退会手続きが完了しました");

  // Signed out here, and signing in again fails.
  await page.goto("/my/profile/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
  await signIn(page, member);
  await expect(page.getByRole("alert")).toContainText("ログインに失敗しました");

  // The address can sign up again: it reaches the code step.
  await page.goto("/auth/sign-up/");
  await page.locator('[name="email"]').fill(member.email);
  await page.locator('[name="password"]').fill("another-passphrase-1");
  for (const name of ["agreeIdTerms", "agreeDataTerms", "agreePrivacy"]) await page.locator(`[name="${name}"]`).check();
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  await expect(page.getByText(`${member.email} に確認コードを送信しました`)).toBeVisible();
});
