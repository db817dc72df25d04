import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { createTestMember } from "../support/test-members";
import { browserSigningIn, signIn } from "../support/sign-in-form";

const LOGIN_FAILED = "ログインに失敗しました。メールアドレスとパスワードを確認してください";

test("a members-only page sends visitors to sign-in and back there afterwards", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "guard");
  await page.goto("/my/profile/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("email")).toHaveText(member.email);
  await expect(page.getByTestId("toast")).toContainText("ログインしました");
  // The header now shows the member (the e-mail until the profile is filled in).
  await expect(page.getByRole("banner")).toContainText(member.email);
});

test("a wrong password keeps the e-mail, never the password, and says why", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "wrong");
  await page.goto("/auth/sign-in/");
  await signIn(page, { email: member.email, password: "not-the-password" });
  await expect(page.getByRole("alert")).toContainText("ログインに失敗しました");
  await expect(page.getByLabel("メールアドレス")).toHaveValue(member.email);
  await expect(page.getByLabel("パスワード")).toHaveValue("");
  await expect(page.getByTestId("toast")).toHaveCount(0);
});

test("an unknown address reads exactly like a wrong password", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "unknown-vs-wrong");
  await page.goto("/auth/sign-in/");
  await signIn(page, { email: member.email, password: "not-the-password" });
  // The form's message, in its error summary.
  await expect(page.getByRole("alert").getByRole("listitem")).toHaveText(LOGIN_FAILED);
  const wrongPassword = (await page.getByRole("alert").textContent()) ?? "";

  await page.goto("/auth/sign-in/");
  await signIn(page, { email: "nobody-here@example.jp", password: "whatever-password" });
  // The whole message, not a shared prefix: a hint that the address is unknown would give its absence away.
  await expect(page.getByRole("alert")).toHaveText(wrongPassword);
  await expect(page.getByLabel("メールアドレス")).toHaveValue("nobody-here@example.jp");
  await expect(page.getByLabel("パスワード")).toHaveValue("");
});

test("empty fields are explained in the page's language", async ({ page }) => {
  await page.goto("/en/auth/sign-in/");
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await expect(page.getByText("Please enter here").first()).toBeVisible();
});

test("signed in, the sign-in page shows who is signed in and continues", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "already");
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await page.goto("/auth/sign-in/?to=my-profile");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("ログイン済みです");
  await expect(page.locator("main")).toContainText(member.email);
  await page.getByRole("link", { name: "続ける" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
});

test("sign-out ends the session on the server: the old cookie no longer signs in", async ({ page, context }) => {
  const member = await createTestMember(STANDIN_PORT, "signout");
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  const captured = await context.cookies();

  await page.goto("/auth/sign-out/");
  await page.getByRole("main").getByRole("button", { name: "ログアウト" }).click();
  await expect(page).toHaveURL(/localhost:\d+\/$/);
  await expect(page.getByTestId("toast")).toContainText("ログアウトしました");

  await context.clearCookies();
  await context.addCookies(captured);
  await page.goto("/my/profile/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
});

test("at the device limit the member deactivates a device and continues; that device is signed out", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "devices");
  const first = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(first.page).toHaveURL(/\/my\/profile\/$/);
  for (let index = 0; index < 2; index++) {
    const other = await browserSigningIn(browser, member, javaScriptEnabled);
    await expect(other.page).toHaveURL(/\/my\/profile\/$/);
    await other.context.close();
  }

  const fourth = await browserSigningIn(browser, member, javaScriptEnabled);
  const page = fourth.page;
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("ログイン中のデバイスが上限に達しています");
  await expect(page.getByTestId("device-count")).toHaveText(
    "ログイン中のデバイス：3台（一覧の先頭は、いまログインしようとしているこのブラウザで、台数に含みません）",
  );
  // This browser is listed first, marked, with nothing to deactivate; the three it competes with follow.
  const rows = page.locator(".device-table tbody tr");
  await expect(rows).toHaveCount(4);
  await expect(rows.first()).toContainText("現在ログイン中");
  await expect(rows.first().getByRole("button")).toHaveCount(0);
  await expect(page.locator("main").getByText("現在ログイン中")).toHaveCount(1);
  await expect(page.getByRole("button", { name: /を無効にする$/ })).toHaveCount(3);
  await page.getByRole("button", { name: "ログインを続ける" }).click();
  await expect(page.getByTestId("toast")).toContainText("デバイス数が上限を超えています");

  // The oldest device is the first context's browser.
  await page
    .getByRole("button", { name: /を無効にする$/ })
    .first()
    .click();
  await expect(page.getByTestId("toast")).toContainText("を無効にしました");
  await page.getByRole("button", { name: "ログインを続ける" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("email")).toHaveText(member.email);

  await first.page.goto("/my/profile/");
  await expect(first.page).toHaveURL(/\/auth\/sign-in\/\?to=my-profile$/);
  await first.context.close();
  await fourth.context.close();
});

test("a member from before July 2021 signs in with the old address and password and never notices", async ({
  page,
  javaScriptEnabled,
}) => {
  // tests/fixtures/legacy-accounts.csv, imported before the server starts; one account per project.
  const email = javaScriptEnabled ? "legacy-js-on@example.jp" : "legacy-js-off@example.jp";
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, { email, password: "old-password-2019" });
  // The old profile came along: its preferred language picks the page's, and the header names the member (given
  // name first in English).
  await expect(page).toHaveURL(javaScriptEnabled ? /\/\/[^/]+\/my\/profile\/$/ : /\/en\/my\/profile\/$/);
  await expect(page.getByTestId("email")).toHaveText(email);
  await expect(page.getByRole("banner")).toContainText(javaScriptEnabled ? "旧 会員" : "Member Old");
});

test("a member sent by a sibling service goes back there after signing in", async ({ request }) => {
  const member = await createTestMember(STANDIN_PORT, "return");
  // Arriving from the data service (a configured host) is remembered for the visit.
  await request.get("/auth/sign-in/", { headers: { Referer: "https://data.example.test/articles/1" } });
  const signedIn = await request.post("/auth/sign-in/", {
    form: { intent: "sign-in", email: member.email, password: member.password },
    maxRedirects: 0,
  });
  expect(signedIn.status()).toBe(302);
  expect(signedIn.headers()["location"]).toBe("https://data.example.test");
});

test("an unsafe `to` falls back to the default target", async ({ request }) => {
  const member = await createTestMember(STANDIN_PORT, "unsafe-to");
  const signedIn = await request.post(`/auth/sign-in/?to=${encodeURIComponent("//evil.example/")}`, {
    form: { intent: "sign-in", email: member.email, password: member.password },
    maxRedirects: 0,
  });
  expect(signedIn.headers()["location"]).toBe("/");
});
