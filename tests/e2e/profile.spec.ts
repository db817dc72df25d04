import { expect, inOneProjectFor, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { createTestMember } from "../support/test-members";
import { fillProfileFields } from "../support/profile-form";
import { signIn } from "../support/sign-in-form";

test("a member without a profile is led to fill it in; errors keep what was typed; the change is shown and greeted", async ({
  page,
}) => {
  inOneProjectFor("ja");
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "profile");
  await page.goto("/my/profile/");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("email")).toHaveText(member.email);
  await expect(page.getByTestId("subject")).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(page.getByTestId("profile-not-filled")).toContainText("会員情報（お名前など）がまだ登録されていません");

  await page.getByRole("link", { name: "会員情報を登録する" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/edit\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("会員情報の変更");

  // The family name is missing: named in Japanese, and everything typed stays.
  await fillProfileFields(page, {
    givenName: "太郎",
    birthYear: "1980",
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    organization: "山田設計事務所",
  });
  await page.getByRole("button", { name: "変更する" }).click();
  await expect(page.getByText("こちらに入力してください")).toHaveCount(1);
  // The focus, and the view, are on the error summary at the top of the form, which leads to the refused field.
  await expect(page.locator(":focus")).toContainText("問題があります");
  await expect(page.locator(":focus")).toBeInViewport();
  await page.getByRole("link", { name: "入力内容をご確認ください（1か所）" }).click();
  await expect(page.locator('[name="familyName"]')).toBeFocused();
  await expect(page.locator('[name="givenName"]')).toHaveValue("太郎");
  await expect(page.locator('[name="birthYear"]')).toHaveValue("1980");
  await expect(page.locator('[name="country"]')).toHaveValue("JP");
  await expect(page.locator('[name="organization"]')).toHaveValue("山田設計事務所");
  await expect(page.getByTestId("toast")).toHaveCount(0);

  await page.locator('[name="familyName"]').fill("山田");
  await page.getByRole("button", { name: "変更する" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("toast")).toContainText("会員情報を変更しました");
  await expect(page.getByTestId("profile-not-filled")).toHaveCount(0);
  await expect(page.getByTestId("familyName")).toHaveText("山田");
  await expect(page.getByTestId("givenName")).toHaveText("太郎");
  await expect(page.getByTestId("birthYear")).toHaveText("1980");
  await expect(page.getByTestId("country")).toHaveText("日本");
  await expect(page.getByTestId("prefecture")).toHaveText("東京都");
  await expect(page.getByTestId("occupation")).toHaveText("建築設計");
  await expect(page.getByTestId("organization")).toHaveText("山田設計事務所");
  await expect(page.getByTestId("preferredLanguage")).toHaveText("日本語");
  await expect(page.getByRole("banner")).toContainText("山田 太郎");

  // Editing again starts from what is stored.
  await page.getByRole("link", { name: "会員情報を変更する" }).click();
  await expect(page.locator('[name="familyName"]')).toHaveValue("山田");
  await expect(page.locator('[name="occupation"]')).toHaveValue("architect");
  await expect(page.locator('[name="prefecture"]')).toHaveValue("東京都");
  await page.locator('[name="prefecture"]').selectOption("大阪府");
  await page.getByRole("button", { name: "変更する" }).click();
  await expect(page.getByTestId("prefecture")).toHaveText("大阪府");
  await expect(page.getByTestId("familyName")).toHaveText("山田");
});

test("the same in English under /en/", async ({ page }) => {
  inOneProjectFor("en");
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "profile-en");
  await page.goto("/en/my/profile/");
  await signIn(page, member, "en");
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);
  await expect(page.getByTestId("profile-not-filled")).toContainText("has not been registered yet");

  await page.getByRole("link", { name: "Fill in membership information" }).click();
  await expect(page).toHaveURL(/\/en\/my\/profile\/edit\/$/);
  await expect(page.locator('[name="preferredLanguage"]')).toHaveValue("en");
  await fillProfileFields(page, {
    givenName: "Jane",
    birthYear: "1975",
    country: "GB",
    region: "London",
    occupation: "academic",
    organization: "University",
  });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Please enter here")).toHaveCount(1);
  // Without JavaScript the answer is a new page, which focuses its error summary as it loads.
  await expect(page.locator(":focus")).toContainText("There is a problem");
  await expect(page.locator(":focus")).toBeInViewport();
  await page.getByRole("link", { name: "Check the fields marked below (1)" }).click();
  await expect(page.locator('[name="familyName"]')).toBeFocused();
  await expect(page.locator('[name="givenName"]')).toHaveValue("Jane");
  await expect(page.locator('[name="country"]')).toHaveValue("GB");

  await page.locator('[name="familyName"]').fill("Smith");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);
  await expect(page.getByTestId("toast")).toContainText("Your membership information has been changed");
  await expect(page.getByTestId("familyName")).toHaveText("Smith");
  await expect(page.getByTestId("country")).toHaveText("United Kingdom");
  await expect(page.getByTestId("occupation")).toHaveText("Education or research");
  await expect(page.getByTestId("preferredLanguage")).toHaveText("English");
  // Given name first outside Japanese.
  await expect(page.getByRole("banner")).toContainText("Jane Smith");
});

test("members only: the edit page sends visitors to sign-in and back", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "profile-guard");
  await page.goto("/my/profile/edit/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile-edit$/);
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/edit\/$/);
});

test("the prefecture is a list of Japan's 47 for Japan and free text elsewhere; with JavaScript only the one that applies shows", async ({
  page,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "prefecture");
  await page.goto("/en/my/profile/edit/");
  await signIn(page, member, "en");
  await expect(page).toHaveURL(/\/en\/my\/profile\/edit\/$/);
  const list = page.locator('select[name="prefecture"]');
  const freeText = page.locator('input[name="region"]');
  await expect(list.locator("option")).toHaveCount(48);
  await expect(list.locator("option").nth(1)).toHaveText("Hokkaido");
  await expect(list.locator("option").nth(47)).toHaveText("Okinawa");

  await page.locator('[name="country"]').selectOption("FR");
  if (javaScriptEnabled) {
    await expect(list).toHaveCount(0);
    await expect(freeText).toBeVisible();
  } else {
    // Both, each saying whom it is for; the server takes the one the country calls for.
    await expect(page.getByText("If you live in Japan")).toBeVisible();
    await expect(page.getByText("If you live outside Japan")).toBeVisible();
  }
  await fillProfileFields(page, {
    familyName: "Martin",
    givenName: "Claire",
    birthYear: "1990",
    region: "Île-de-France",
    occupation: "design",
    organization: "Atelier",
  });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);
  await expect(page.getByTestId("prefecture")).toHaveText("Île-de-France");

  // Back to Japan: the list is required (without it, the free text left over does not count).
  await page.goto("/en/my/profile/edit/");
  await page.locator('[name="country"]').selectOption("JP");
  if (javaScriptEnabled) {
    await expect(freeText).toHaveCount(0);
    await expect(list).toBeVisible();
    await expect(list).toHaveAttribute("required", "");
  }
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.locator(".error-list").getByText("Please select")).toBeVisible();
  await list.selectOption("京都府");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/en\/my\/profile\/$/);
  // Stored as 京都府 (what the API and the exports carry), shown in the page's language.
  await expect(page.getByTestId("prefecture")).toHaveText("Kyoto");
});
