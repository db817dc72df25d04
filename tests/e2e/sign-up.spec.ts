import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { latestCodeFor } from "../support/mailbox";
import { fillProfileFields } from "../support/profile-form";
import { createTestMember } from "../support/test-members";

const PASSWORD = "a-long-enough-password";

function newAddress(label: string) {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
}

async function submitCredentials(page: Page, email: string) {
  await page.goto("/auth/sign-up/");
  await page.locator('[name="email"]').fill(email);
  await page.locator('[name="password"]').fill(PASSWORD);
  for (const name of ["agreeIdTerms", "agreeDataTerms", "agreePrivacy"]) await page.locator(`[name="${name}"]`).check();
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  await expect(page.getByText(`${email} に確認コードを送信しました`)).toBeVisible();
}

async function fillAccountInfo(page: Page) {
  await fillProfileFields(page, {
    familyName: "山田",
    givenName: "太郎",
    birthYear: "1980",
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    organization: "山田設計事務所",
  });
  await page.getByLabel("雑誌", { exact: true }).check();
  await page.getByLabel("価格").check();
  await page.getByLabel("ウェブメディア").check();
}

test("sign up: e-mail and agreements, a wrong then the right code, account information, then sign in", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const email = newAddress("journey");
  await submitCredentials(page, email);

  await page.locator('[name="code"]').fill("000000");
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await expect(page.getByRole("alert").first()).toContainText("確認コードが一致しません");

  await page.locator('[name="code"]').fill(await latestCodeFor(request, email));
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await expect(page.getByText("氏名は実名でご登録ください")).toBeVisible();

  // Missing answers are named, and what was typed stays.
  await page.locator('[name="familyName"]').fill("山田");
  await page.getByRole("button", { name: "登録する" }).click();
  await expect(page.getByText("こちらに入力してください").first()).toBeVisible();
  await expect(page.locator('[name="familyName"]')).toHaveValue("山田");

  await fillAccountInfo(page);
  await page.getByRole("button", { name: "登録する" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("登録が完了しました");

  await page.getByRole("main").getByRole("link", { name: "ログイン" }).click();
  await page.getByLabel("メールアドレス").fill(email);
  await page.getByLabel("パスワード").fill(PASSWORD);
  await page.getByRole("button", { name: "ログイン", exact: true }).click();
  // With the profile filled, the header shows the name, family name first in Japanese.
  await expect(page.getByRole("banner")).toContainText("山田 太郎");
});

test("signing up again before confirming sends a new code that works", async ({ page, request }) => {
  const email = newAddress("unconfirmed");
  await submitCredentials(page, email);
  const firstCode = await latestCodeFor(request, email);
  await page.getByRole("button", { name: "最初からやり直す" }).click();
  // Back at the first step before starting again (the flow's cookie is gone).
  await expect(page.locator('[name="email"]')).toBeVisible();
  await submitCredentials(page, email);
  const secondCode = await latestCodeFor(request, email, firstCode);
  await page.locator('[name="code"]').fill(secondCode);
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await expect(page.getByText("氏名は実名でご登録ください")).toBeVisible();
});

test("an address that is already registered gets the same next page as a new one", async ({ page }) => {
  const existing = await createTestMember(STANDIN_PORT, "registered");
  await submitCredentials(page, existing.email);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("新規登録");
  await expect(page.locator('[name="code"]')).toBeVisible();
});

test("the three agreements and an 8-character password are required", async ({ page }) => {
  await page.goto("/en/auth/sign-up/");
  await page.locator('[name="email"]').fill(newAddress("rules"));
  await page.locator('[name="password"]').fill("short");
  await page.getByRole("button", { name: "Send confirmation code" }).click();
  await expect(page.getByText("Please enter at least 8 characters")).toBeVisible();
  await expect(page.getByText("Please agree")).toHaveCount(3);
  await expect(page.locator('[name="password"]')).toHaveValue("");
});

test("a common password and one made of the address are refused on the password field, saying why", async ({
  page,
}) => {
  const email = newAddress("weak");
  const password = page.locator('[name="password"]');
  const tryPassword = async (value: string, submit: string) => {
    await page.locator('[name="email"]').fill(email);
    await password.fill(value);
    for (const name of ["agreeIdTerms", "agreeDataTerms", "agreePrivacy"]) {
      await page.locator(`[name="${name}"]`).check();
    }
    await page.getByRole("button", { name: submit }).click();
  };

  await page.goto("/auth/sign-up/");
  await tryPassword("password1234", "確認コードを送信");
  await expect(password).toHaveAccessibleDescription(/よく使われているパスワードや流出したパスワードに近く/);
  await expect(password).toHaveAccessibleDescription(/関係のない単語をいくつか並べた、長めのフレーズ/);
  // The address stays; the password does not, and no code step follows.
  await expect(page.locator('[name="email"]')).toHaveValue(email);
  await expect(password).toHaveValue("");
  await expect(page.locator('[name="code"]')).toHaveCount(0);

  await page.goto("/en/auth/sign-up/");
  await tryPassword(`${email.split("@")[0]}2024`, "Send confirmation code");
  await expect(password).toHaveAccessibleDescription(/A password made from your e-mail address or name/);
  await expect(page.locator('[name="email"]')).toHaveValue(email);
  await expect(page.locator('[name="code"]')).toHaveCount(0);
});

test("sign-in links to sign-up and sign-up to sign-in", async ({ page }) => {
  await page.goto("/auth/sign-in/");
  await page.getByRole("main").getByRole("link", { name: "新規登録" }).click();
  await expect(page).toHaveURL(/\/auth\/sign-up\/$/);
  await expect(page.getByRole("main")).toContainText("すでにIDをお持ちの方");
  await page.getByRole("main").getByRole("link", { name: "ログイン" }).click();
  await expect(page).toHaveURL(/\/auth\/sign-in\/$/);

  await page.goto("/en/auth/sign-in/");
  await page.getByRole("main").getByRole("link", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/en\/auth\/sign-up\/$/);
  await page.getByRole("main").getByRole("link", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/en\/auth\/sign-in\/$/);
});
