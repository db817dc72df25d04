import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { latestCodeFor } from "../support/mailbox";
import { createTestMember } from "../support/test-members";
import { signIn } from "../support/sign-in-form";

const NEW_PASSWORD = "a-brand-new-passphrase";

async function requestReset(
  page: Page,
  email: string,
  labels = { email: "メールアドレス", submit: "確認コードを送信" },
) {
  await page.getByLabel(labels.email).fill(email);
  await page.getByRole("button", { name: labels.submit }).click();
}

async function confirmReset(page: Page, code: string, password: string) {
  await page.getByLabel("確認コード").fill(code);
  await page.getByLabel("新しいパスワード").fill(password);
  await page.getByRole("button", { name: "パスワードを変更" }).click();
}

/** A code of the same shape that is certainly not `code`. */
const wrongCodeFor = (code: string) => (code === "000000" ? "111111" : "000000");

test("a member resets a forgotten password with the mailed code, then signs in with the new one only", async ({
  page,
  request,
}) => {
  const member = await createTestMember(STANDIN_PORT, "reset");
  await page.goto("/auth/sign-in/");
  await page.getByRole("link", { name: "パスワードをお忘れの方" }).click();
  await expect(page).toHaveURL(/\/auth\/forgot-password\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("パスワードの再設定");

  await requestReset(page, member.email);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("新しいパスワードの設定");
  await expect(page.locator("main")).toContainText(member.email);
  const code = await latestCodeFor(request, member.email);

  // A wrong code: said on the form; the address and the code stay, the password does not.
  await confirmReset(page, wrongCodeFor(code), NEW_PASSWORD);
  await expect(page.getByRole("alert").filter({ hasText: "確認コードが一致しません" })).toBeVisible();
  await expect(page.getByLabel("メールアドレス")).toHaveValue(member.email);
  await expect(page.getByLabel("確認コード")).toHaveValue(wrongCodeFor(code));
  await expect(page.getByLabel("新しいパスワード")).toHaveValue("");

  await confirmReset(page, code, NEW_PASSWORD);
  await expect(page).toHaveURL(/\/auth\/sign-in\/$/);
  await expect(page.getByTestId("toast")).toContainText("パスワードを変更しました");

  await signIn(page, member);
  await expect(page.getByRole("alert").filter({ hasText: "ログインに失敗しました" })).toBeVisible();
  await signIn(page, { email: member.email, password: NEW_PASSWORD });
  await expect(page.getByTestId("toast")).toContainText("ログインしました");
  await expect(page.getByRole("banner")).toContainText(member.email);
});

test("sending the code again mails a new code that works; starting over asks for the address again", async ({
  page,
  request,
}) => {
  const member = await createTestMember(STANDIN_PORT, "resend");
  await page.goto("/auth/forgot-password/");
  await requestReset(page, member.email);
  const firstCode = await latestCodeFor(request, member.email);

  await page.getByRole("button", { name: "確認コードを再送信" }).click();
  await expect(page.locator("main")).toContainText("新しい確認コードをお送りしました");
  const secondCode = await latestCodeFor(request, member.email, firstCode);

  await page.getByRole("button", { name: "メールアドレスを入力し直す" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("パスワードの再設定");
  await expect(page.getByLabel("メールアドレス")).toHaveValue("");

  await requestReset(page, member.email);
  const thirdCode = await latestCodeFor(request, member.email, secondCode);
  await confirmReset(page, thirdCode, NEW_PASSWORD);
  await expect(page).toHaveURL(/\/auth\/sign-in\/$/);
  await expect(page.getByTestId("toast")).toContainText("パスワードを変更しました");
});

/** The request step over plain HTTP, as a script probing for addresses would see it. */
async function requestOverHttp(request: APIRequestContext, email: string) {
  const posted = await request.post("/auth/forgot-password/", { form: { intent: "request", email }, maxRedirects: 0 });
  const setCookie =
    posted
      .headersArray()
      .find((header) => header.name.toLowerCase() === "set-cookie" && header.value.startsWith("id_password_reset="))
      ?.value ?? "";
  const cookie = setCookie.split(";")[0] ?? "";
  const next = await request.get(posted.headers().location ?? "/", { headers: { Cookie: cookie } });
  const html = await next.text();
  const heading = /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
  return {
    status: posted.status(),
    location: posted.headers().location,
    setCookie,
    nextStatus: next.status(),
    heading,
  };
}

test("an unknown address gets exactly the answer and page a member's address gets", async ({
  page,
  playwright,
  baseURL,
}) => {
  const member = await createTestMember(STANDIN_PORT, "known");
  const unknown = `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  // The same status, redirect and cookie attributes, and the same next page.
  const http = await playwright.request.newContext({ baseURL });
  const known = await requestOverHttp(http, member.email);
  await http.dispose();
  const other = await playwright.request.newContext({ baseURL });
  const stranger = await requestOverHttp(other, unknown);
  await other.dispose();
  expect(known.status).toBe(302);
  expect(stranger.status).toBe(known.status);
  expect(stranger.location).toBe(known.location);
  expect(stranger.nextStatus).toBe(200);
  expect(stranger.nextStatus).toBe(known.nextStatus);
  expect(stranger.heading).toBe(known.heading);
  for (const attribute of ["Max-Age=1800", "Path=/", "HttpOnly", "SameSite=Lax"]) {
    expect(known.setCookie).toContain(attribute);
    expect(stranger.setCookie).toContain(attribute);
  }

  // And in the browser: the same page, word for word, but for the address typed.
  const shownFor = async (email: string) => {
    await page.context().clearCookies();
    await page.goto("/auth/forgot-password/");
    await requestReset(page, email);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("新しいパスワードの設定");
    return (await page.locator("main").innerText()).replaceAll(email, "<email>");
  };
  expect(await shownFor(unknown)).toBe(await shownFor(member.email));
});

test("an unknown address fails the confirm step exactly like a wrong code", async ({ page }) => {
  await page.goto("/auth/forgot-password/");
  await requestReset(page, `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`);
  await confirmReset(page, "123456", NEW_PASSWORD);
  await expect(page.getByRole("alert").filter({ hasText: "確認コードが一致しません" })).toBeVisible();
});

test("a new password of 7 characters is refused in the page's language", async ({ page }) => {
  const member = await createTestMember(STANDIN_PORT, "short");
  await page.goto("/en/auth/forgot-password/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reset your password");
  await requestReset(page, member.email, { email: "E-mail address", submit: "Send the code" });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Set a new password");

  await page.getByLabel("Confirmation code").fill("123456");
  await page.getByLabel("New password").fill("1234567");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Please enter at least 8 characters")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Set a new password");
  await expect(page.getByLabel("Confirmation code")).toHaveValue("123456");
});

test("a common new password and one made of the address are refused, and the same code then sets a good one", async ({
  page,
  request,
}) => {
  const member = await createTestMember(STANDIN_PORT, "weak-reset");
  await page.goto("/en/auth/forgot-password/");
  await requestReset(page, member.email, { email: "E-mail address", submit: "Send the code" });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Set a new password");
  const code = await latestCodeFor(request, member.email);
  const newPassword = page.getByLabel("New password");
  const tryPassword = async (password: string) => {
    await page.getByLabel("Confirmation code").fill(code);
    await newPassword.fill(password);
    await page.getByRole("button", { name: "Change password" }).click();
  };

  await tryPassword("password1234");
  await expect(newPassword).toHaveAccessibleDescription(/This password is too easy to guess/);
  await expect(newPassword).toHaveAccessibleDescription(/Use a longer phrase of several unrelated words/);
  await expect(page.getByLabel("Confirmation code")).toHaveValue(code);
  await expect(newPassword).toHaveValue("");

  await tryPassword(member.email);
  await expect(newPassword).toHaveAccessibleDescription(/A password made from your e-mail address or name/);

  // Refused before Cognito saw the code, which still works.
  await tryPassword(NEW_PASSWORD);
  await expect(page).toHaveURL(/\/en\/auth\/sign-in\/$/);
  await signIn(page, { email: member.email, password: NEW_PASSWORD }, "en");
  await expect(page.getByRole("banner")).toContainText(member.email);
});

test("both steps, with their errors showing, have no serious accessibility violations", async ({
  page,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, "axe-core needs JavaScript in the page");
  const seriousViolations = async () =>
    (await new AxeBuilder({ page }).analyze()).violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);

  await page.goto("/en/auth/forgot-password/");
  await page.getByRole("button", { name: "Send the code" }).click();
  await expect(page.getByText("Please enter here")).toBeVisible();
  expect(await seriousViolations()).toEqual([]);

  await requestReset(page, `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`, {
    email: "E-mail address",
    submit: "Send the code",
  });
  await page.getByLabel("Confirmation code").fill("123456");
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The confirmation code does not match" })).toBeVisible();
  expect(await seriousViolations()).toEqual([]);
});
