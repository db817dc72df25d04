import { expect, test } from "./fixtures";

test("a path without its trailing slash redirects to it and keeps the query", async ({ page, request }) => {
  const response = await request.get("/docs/privacy-policy?from=mail&x=1", { maxRedirects: 0 });
  expect(response.status()).toBe(301);
  expect(response.headers()["location"]).toBe("/docs/privacy-policy/?from=mail&x=1");

  await page.goto("/en/docs/terms-of-use?ref=footer");
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/en/docs/terms-of-use/?ref=footer");
});

test("Japanese lives at unprefixed paths and English under /en/", async ({ page }) => {
  await page.goto("/docs/privacy-policy/");
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("プライバシー");

  await page.goto("/en/docs/privacy-policy/");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Privacy");
});

test("?locale= switches to the same page in that language and remembers the choice for 365 days", async ({
  page,
  context,
}) => {
  await page.goto("/docs/terms-of-use/?locale=en");
  expect(new URL(page.url()).pathname).toBe("/en/docs/terms-of-use/");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  const cookie = (await context.cookies()).find((c) => c.name === "i18n_redirected");
  expect(cookie?.value).toBe("en");
  const days = ((cookie?.expires ?? 0) * 1000 - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(364);
  expect(days).toBeLessThanOrEqual(365);

  // The remembered choice now wins at the root, whatever the browser says.
  await page.goto("/");
  expect(new URL(page.url()).pathname).toBe("/en/");
});

test("the Ja/En switch keeps the current page", async ({ page }) => {
  await page.goto("/docs/privacy-policy/");
  await page.getByRole("banner").getByRole("link", { name: "English" }).click();
  await expect(page).toHaveURL(/\/en\/docs\/privacy-policy\/$/);
  await page.getByRole("contentinfo").getByRole("link", { name: "日本語" }).click();
  await expect(page).toHaveURL(/\/docs\/privacy-policy\/$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
});

test.describe("browser language", () => {
  test.use({ locale: "en-US" });

  test("an English browser is sent from / to /en/, but only at the root", async ({ page }) => {
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/en/");
    await page.context().clearCookies();
    await page.goto("/docs/terms-of-use/");
    expect(new URL(page.url()).pathname).toBe("/docs/terms-of-use/");
    await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  });
});

test.describe("Japanese browser", () => {
  test.use({ locale: "ja-JP" });

  test("a Japanese browser stays at /", async ({ page }) => {
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/");
    await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  });
});

test("unknown pages answer 404 in the page's language, inside the site frame", async ({ page }) => {
  const ja = await page.goto("/no-such-page/");
  expect(ja?.status()).toBe(404);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("ページが見つかりません");
  await expect(page.getByRole("banner")).toBeVisible();

  const en = await page.goto("/en/no/such/page/");
  expect(en?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/not found/i);
  await expect(page.getByRole("link", { name: /home/i }).first()).toBeVisible();
});

test("security headers are on every page", async ({ request }) => {
  const response = await request.get("/");
  const headers = response.headers();
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  const html = await response.text();
  const nonce = /'nonce-([^']+)'/.exec(headers["content-security-policy"] ?? "")?.[1];
  // Every inline script carries this response's nonce.
  const scripts = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes] of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
});

test("health and readiness answer", async ({ request }) => {
  expect((await request.get("/healthz/")).status()).toBe(200);
  const ready = await request.get("/readyz/");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toMatchObject({ status: "ready", database: true, jwks: true });
});

test("static assets are fingerprinted and cached immutably, and pages are compressed", async ({ request }) => {
  const html = await (await request.get("/")).text();
  const asset = /\/assets\/[^"]+\.js/.exec(html)?.[0];
  expect(asset).toBeTruthy();
  const response = await request.get(asset!, { headers: { "Accept-Encoding": "gzip" } });
  expect(response.headers()["cache-control"]).toContain("immutable");
  expect(response.headers()["content-encoding"]).toBe("gzip");
});

test("the privacy policy's token variant shows the same policy and names the token-less URL as canonical", async ({
  page,
}) => {
  for (const [prefix, heading] of [
    ["", "プライバシー"],
    ["/en", "Privacy"],
  ] as const) {
    const response = await page.goto(`${prefix}/docs/privacy-policy/from-data-service/`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(heading);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", `${prefix}/docs/privacy-policy/`);
  }
  // Without a token the page is its own canonical URL.
  await page.goto("/docs/privacy-policy/");
  await expect(page.locator('link[rel="canonical"]')).toHaveCount(0);
});
