import { expect, test } from "./fixtures";

for (const width of [375, 800, 1440]) {
  test(`the menu opens and closes at ${width}px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/");
    const menu = page.locator("details.site-menu");
    const drawer = menu.locator(".site-menu__drawer");
    await expect(drawer).toBeHidden();

    await menu.locator("summary").click();
    await expect(drawer).toBeVisible();
    await expect(drawer.getByRole("link", { name: "ログイン" })).toBeVisible();
    // The drawer slides in from the left edge.
    await expect.poll(async () => (await drawer.boundingBox())?.x).toBe(0);

    await menu.locator("summary").click();
    await expect(drawer).toBeHidden();
  });
}

test("the menu closes when the member navigates", async ({ page }) => {
  await page.goto("/docs/terms-of-use/");
  const menu = page.locator("details.site-menu");
  await menu.locator("summary").click();
  await menu.locator(".site-menu__drawer").getByRole("link", { name: "ホーム" }).click();
  await expect(page).toHaveURL(/localhost:\d+\/$/);
  // With JavaScript off a navigation loads a new document, whose menu starts closed; with it on, the menu closes.
  await expect(page.locator("details.site-menu .site-menu__drawer")).toBeHidden();
  // "Hidden" holds for a page without the menu too: the home page must be there, its menu closed and usable again.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("ひとつのIDで、すべてのサービスへ");
  const menuAfter = page.locator("details.site-menu");
  await expect(menuAfter).toHaveCount(1);
  await expect(menuAfter).not.toHaveAttribute("open");
  await menuAfter.locator("summary").click();
  await expect(menuAfter.locator(".site-menu__drawer").getByRole("link", { name: "ホーム" })).toBeVisible();
});

test("the compact user menu of narrow screens opens and closes", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/en/");
  const userMenu = page.locator("details.user-menu").first();
  const panel = userMenu.locator(".user-menu__panel");
  await expect(panel).toBeHidden();
  await userMenu.locator("summary").click();
  await expect(panel).toBeVisible();
  await expect(panel.getByRole("link", { name: /log in/i })).toBeVisible();
  await userMenu.locator("summary").click();
  await expect(panel).toBeHidden();
});

test("a toast is shown at the bottom centre, announced, and gone after 1.5 s", async ({ page }) => {
  await page.goto("/rebranding-debugs/toast/");
  await page.getByRole("button", { name: /success|成功/i }).click();
  const toast = page.getByTestId("toast");
  await expect(toast).toBeVisible();
  await expect(toast).toHaveAttribute("role", "status");
  await expect(toast).toContainText("変更を保存しました");
  const box = await toast.boundingBox();
  const viewport = page.viewportSize()!;
  expect(Math.abs(box!.x + box!.width / 2 - viewport.width / 2)).toBeLessThan(2);
  expect(box!.y + box!.height).toBeGreaterThan(viewport.height * 0.75);
  await expect(toast).toBeHidden({ timeout: 5_000 });

  // A reload does not show it again: the toast cookie was consumed.
  await page.reload();
  await expect(page.getByTestId("toast")).toHaveCount(0);
});

test("an error toast is an alert that stays until the member dismisses it", async ({ page }) => {
  await page.goto("/en/rebranding-debugs/toast/");
  await page.getByRole("button", { name: /error/i }).click();
  const toast = page.getByTestId("toast");
  await expect(toast.getByRole("alert")).toContainText("An internal error occurred");
  // No countdown: the only animation is its entrance, so nothing hides it but its button.
  expect(await toast.evaluate((element) => getComputedStyle(element).animationName)).not.toContain("toast-leave");
  await toast.getByRole("button", { name: "Dismiss" }).click();
  await expect(toast).toBeHidden();
});

test("a prefetch of another page does not swallow a waiting toast", async ({ request }) => {
  const posted = await request.post("/rebranding-debugs/toast/", { form: { kind: "success" }, maxRedirects: 0 });
  expect(posted.status()).toBe(302);
  // What the browser does for a visible link while the redirect is on its way.
  const prefetch = await request.get("/docs/terms-of-use/_.data", { headers: { "Sec-Purpose": "prefetch" } });
  expect(prefetch.status()).toBe(200);
  expect(prefetch.headers()["set-cookie"] ?? "").not.toContain("toast=");

  const page = await request.get("/rebranding-debugs/toast/");
  expect(await page.text()).toContain('data-testid="toast"');
  // Shown once: the next page view has no toast.
  expect(await (await request.get("/rebranding-debugs/toast/")).text()).not.toContain('data-testid="toast"');
});

test("a document page loads no scripts, and is reached from a hydrated page without a reload", async ({
  page,
  javaScriptEnabled,
}) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  await page.goto("/docs/terms-of-use/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("利用規約");
  expect(scripts).toEqual([]);

  await page.goto("/");
  // A mark on the window survives only a navigation that does not load a new document.
  if (javaScriptEnabled) await page.evaluate(() => Object.assign(window, { sameDocument: true }));
  await page.getByRole("contentinfo").getByRole("link", { name: "利用規約" }).click();
  await expect(page).toHaveURL(/\/docs\/terms-of-use\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("利用規約");
  if (javaScriptEnabled) expect(await page.evaluate(() => "sameDocument" in window)).toBe(true);

  // From there on, links keep working: back home through the menu.
  await page.locator("details.site-menu summary").click();
  await page.locator(".site-menu__drawer").getByRole("link", { name: "ホーム" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("ひとつのIDで、すべてのサービスへ");
});

test("a form post that fails on the server: with JavaScript the page stays and shows the internal-error toast, without it the 500 page", async ({
  page,
  javaScriptEnabled,
  browserErrors,
}) => {
  // Without JavaScript the failing post is a document answered with 500, which Chromium logs: that line only. (With
  // JavaScript React Router's data request carries the failure and the page shows the toast; nothing is logged.)
  if (!javaScriptEnabled) {
    browserErrors.allow(/status of 500 \(Internal Server Error\) \(http:\/\/[^/]+\/rebranding-debugs\/toast\/\)$/);
  }
  await page.goto("/rebranding-debugs/toast/");
  // A mark on this document: with JavaScript the page must still be the same one after the post.
  if (javaScriptEnabled) await page.evaluate(() => Object.assign(window, { documentBeforePost: true }));
  await page.getByRole("button", { name: "サーバーで失敗する送信（500）" }).click();
  if (javaScriptEnabled) {
    const alert = page.getByTestId("toast").getByRole("alert");
    await expect(alert).toHaveText("内部エラーが発生しました。時間をおいて再度お試しください");
    await expect(page).toHaveURL(/\/rebranding-debugs\/toast\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("トーストの動作");
    // The same document: no reload happened.
    expect(await page.evaluate(() => "documentBeforePost" in window)).toBe(true);
  } else {
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("エラーが発生しました");
    await expect(page.getByTestId("toast")).toHaveCount(0);
  }
});

for (const { service, minimumWidth } of [
  { service: "data", minimumWidth: 1000 },
  { service: "online", minimumWidth: 1080 },
]) {
  test(`pages of the ${service} service are at least ${minimumWidth} px wide above 640 px, and fit a phone`, async ({
    page,
  }) => {
    const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    await page.setViewportSize({ width: 800, height: 800 });
    // Arriving from the sibling service (a configured host) gives the pages its look for the visit.
    await page.goto("/", { referer: `https://${service}.example.test/` });
    await expect(page.locator("html")).toHaveAttribute("data-theme", service);
    expect(await pageWidth()).toBe(minimumWidth);
    await page.setViewportSize({ width: 1440, height: 800 });
    expect(await pageWidth()).toBe(1440);
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await pageWidth()).toBe(375);
  });
}
