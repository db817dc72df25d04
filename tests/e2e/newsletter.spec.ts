import type { APIRequestContext, Page } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { type StaffTestMember, createNamedMember } from "../support/admin-members";
import { connectToStandIn } from "../support/bearer-tokens";
import { createApiStaff, refreshIntoDirectory, staffTokenSource } from "../support/staff-api-access";
import { fillProfileFields } from "../support/profile-form";
import { signIn } from "../support/sign-in-form";

/**
 * A reader of the newsletter in the staff's directory, and an admin of their own to export the list: the admin's
 * token, one sign-in with the authenticator's code and refreshed after that.
 */
async function readerAndAdmin(label: string, locale: "ja" | "en") {
  const tag = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  const reader = await createNamedMember(STANDIN_PORT, { email: `${tag}@example.jp`, locale });
  await refreshIntoDirectory(E2E_APP, [reader]);
  const sdk = await connectToStandIn(STANDIN_PORT);
  const admin = staffTokenSource(sdk, await createApiStaff(E2E_APP, `${tag}-admin`));
  return { admin, reader };
}

/** The reader's row of the e-mail-address export in `locale` as the sending system gets it, or undefined. */
async function rowInNewsletterList(
  request: APIRequestContext,
  admin: () => Promise<string>,
  reader: StaffTestMember,
  locale: "ja" | "en",
) {
  const accessToken = await admin();
  const response = await request.get(`/api/admin/downloads/email-addresses?locale=${locale}`, {
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  expect(response.status()).toBe(200);
  const [header, ...rows] = parse(await response.text(), { bom: true }) as string[][];
  expect(header).toEqual(["email", "family_name", "given_name", "unsubscribe_url"]);
  const row = rows.find(([email]) => email === reader.email);
  return row ? { email: row[0]!, unsubscribeUrl: row[3]! } : undefined;
}

/** Profile edit with the required fields filled in (a member made in the stand-in has none stored yet). */
async function saveProfileWithNewsletter(page: Page, receive: boolean, labels: { box: string; save: string }) {
  await fillProfileFields(page, {
    familyName: "購読",
    givenName: "花子",
    birthYear: "1985",
    country: "JP",
    prefecture: "京都府",
    occupation: "architect",
    organization: "購読設計",
  });
  const box = page.getByRole("checkbox", { name: labels.box });
  await (receive ? box.check() : box.uncheck());
  await page.getByRole("button", { name: labels.save }).click();
}

test("a member who turns the newsletter off in the profile is gone from the next export, and back when they turn it on", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { admin, reader } = await readerAndAdmin("newsletter-profile", "ja");
  expect(await rowInNewsletterList(request, admin, reader, "ja")).toBeDefined();

  await page.goto("/my/profile/");
  await signIn(page, reader);
  await expect(page.getByTestId("newsletter")).toHaveText("受け取る");
  await page.goto("/my/profile/edit/");
  await expect(page.getByRole("checkbox", { name: "メールマガジンを受け取る" })).toBeChecked();
  await saveProfileWithNewsletter(page, false, { box: "メールマガジンを受け取る", save: "変更する" });
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("newsletter")).toHaveText("受け取らない");
  expect(await rowInNewsletterList(request, admin, reader, "ja")).toBeUndefined();

  await page.goto("/my/profile/edit/");
  await expect(page.getByRole("checkbox", { name: "メールマガジンを受け取る" })).not.toBeChecked();
  await page.getByRole("checkbox", { name: "メールマガジンを受け取る" }).check();
  await page.getByRole("button", { name: "変更する" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  // Only a setting changed: the spec's "Changes are saved".
  await expect(page.getByTestId("toast")).toContainText("変更を保存しました");
  await expect(page.getByTestId("newsletter")).toHaveText("受け取る");
  expect(await rowInNewsletterList(request, admin, reader, "ja")).toBeDefined();
});

test("the export's unsubscribe URL: a tampered one is refused; its page's button unsubscribes without signing in; on again in the profile; the one-click post", async ({
  page,
  request,
  playwright,
}) => {
  test.setTimeout(120_000);
  const { admin, reader } = await readerAndAdmin("newsletter-link", "en");
  const row = await rowInNewsletterList(request, admin, reader, "en");
  expect(row?.unsubscribeUrl).toMatch(new RegExp(`/en/newsletter/unsubscribe/${reader.sub}\\.[0-9a-f]{64}/$`));
  const url = row!.unsubscribeUrl;

  // Another sub under the reader's signature: a clear refusal, and the reader still receives it.
  const tampered = url.replace(reader.sub, crypto.randomUUID());
  const refused = await page.goto(tampered);
  expect(refused?.status()).toBe(400);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This URL is not valid");
  expect(await rowInNewsletterList(request, admin, reader, "en")).toBeDefined();

  // Opening the link changes nothing (mail scanners follow links); the button does.
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Unsubscribe from the newsletter");
  expect(await rowInNewsletterList(request, admin, reader, "en")).toBeDefined();
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");
  await expect(page).toHaveTitle(/You are unsubscribed/);
  expect(await rowInNewsletterList(request, admin, reader, "en")).toBeUndefined();
  // The link opened again says it is done rather than offering the button once more.
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");

  // On again in the profile.
  await page.goto("/en/my/profile/edit/");
  await signIn(page, reader, "en");
  await expect(page).toHaveURL(/\/en\/my\/profile\/edit\/$/);
  await expect(page.getByRole("checkbox", { name: "Receive the newsletter" })).not.toBeChecked();
  await saveProfileWithNewsletter(page, true, { box: "Receive the newsletter", save: "Save changes" });
  await expect(page.getByTestId("newsletter")).toHaveText("Receiving");
  expect(await rowInNewsletterList(request, admin, reader, "en")).toBeDefined();

  // RFC 8058's one-click post, as a mail provider sends it: no cookie, no Origin; unsubscribed at once, twice is fine.
  const mailProvider = await playwright.request.newContext();
  for (let post = 0; post < 2; post++) {
    const response = await mailProvider.post(url, { form: { "List-Unsubscribe": "One-Click" } });
    expect(response.status()).toBe(200);
  }
  await mailProvider.dispose();
  expect(await rowInNewsletterList(request, admin, reader, "en")).toBeUndefined();
});

test("Japanese by default: the link's page and its refusal in Japanese", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { admin, reader } = await readerAndAdmin("newsletter-ja", "ja");
  const url = (await rowInNewsletterList(request, admin, reader, "ja"))!.unsubscribeUrl;
  expect(new URL(url).pathname).toMatch(/^\/newsletter\/unsubscribe\//);
  const cut = await page.goto(url.replace(/[0-9a-f]{8}\/$/, "/"));
  expect(cut?.status()).toBe(400);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("このURLは無効です");
  // One member's link: no shared cache or disk cache keeps its page.
  const opened = await page.goto(url);
  expect(opened?.headers()["cache-control"]).toContain("no-store");
  await page.getByRole("button", { name: "配信を停止する" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("配信を停止しました");
  expect(await rowInNewsletterList(request, admin, reader, "ja")).toBeUndefined();
});
