import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/**
 * Links prefetch the pages they point to once they are in view, but only after the page has been idle for 2000 ms
 * (the spec's prefetch idle timeout), and never on 2g, with data saving on, or offline. The page's idle callback is
 * watched (the app's is the only one) so that each test knows when prefetching would have started.
 */

type Watch = { idleRequestedAt?: number; idleRanAt?: number; firstPrefetchAt?: number };
type FakeConnection = EventTarget & { effectiveType: string; saveData: boolean };

/** Records, in ms since the navigation started, when the idle callback was asked for and ran, and the first prefetch. */
async function watchPrefetching(page: Page) {
  await page.addInitScript(() => {
    const watch: Watch = {};
    Object.assign(window, { prefetchWatch: watch });
    const request = window.requestIdleCallback.bind(window);
    window.requestIdleCallback = (callback, options) => {
      watch.idleRequestedAt ??= performance.now();
      return request((deadline) => {
        watch.idleRanAt ??= performance.now();
        callback(deadline);
      }, options);
    };
    new MutationObserver(() => {
      if (document.querySelector('link[rel="prefetch"]')) watch.firstPrefetchAt ??= performance.now();
    }).observe(document, { childList: true, subtree: true });
  });
}

/** A Network Information API the test controls (Chromium's own cannot be set to 2g or data saving). */
async function fakeConnection(page: Page, values: { effectiveType: string; saveData: boolean }) {
  await page.addInitScript((initial) => {
    const connection = Object.assign(new EventTarget(), initial);
    Object.defineProperty(Navigator.prototype, "connection", { get: () => connection, configurable: true });
  }, values);
}

async function changeConnection(page: Page, values: { effectiveType: string; saveData: boolean }) {
  await page.evaluate((next) => {
    const connection = (navigator as Navigator & { connection: FakeConnection }).connection;
    Object.assign(connection, next);
    connection.dispatchEvent(new Event("change"));
  }, values);
}

const watchOf = (page: Page) => page.evaluate(() => (window as unknown as { prefetchWatch: Watch }).prefetchWatch);
const prefetchLinks = (page: Page) => page.locator('link[rel="prefetch"]');

/** Past the moment prefetching would have started, and a frame after it, so the page has drawn what follows. */
async function waitPastIdle(page: Page) {
  await page.waitForFunction(() => (window as unknown as { prefetchWatch: Watch }).prefetchWatch.idleRanAt, null, {
    timeout: 15_000,
  });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
}

test("links in view prefetch only once the page has been idle for 2000 ms", async ({ page }) => {
  await watchPrefetching(page);
  await page.goto("/");
  await expect(page.locator('link[rel="prefetch"][href^="/auth/sign-in/"]').first()).toBeAttached({ timeout: 15_000 });
  const watch = await watchOf(page);
  expect(watch.idleRequestedAt).toBeGreaterThanOrEqual(2000);
  expect(watch.firstPrefetchAt).toBeGreaterThanOrEqual(watch.idleRanAt!);
});

/**
 * The home page, once React Router has learnt the routes its links lead to (its `__manifest` request): without them
 * it prefetches nothing whatever the policy, and it does not ask for them at all while data saving is on.
 */
async function openHome(page: Page) {
  const discovered = page.waitForResponse((response) => response.url().includes("/__manifest"));
  await page.goto("/");
  await discovered;
}

for (const { label, poor } of [
  { label: "on a 2g connection", poor: { effectiveType: "2g", saveData: false } },
  { label: "when the visitor asked to save data", poor: { effectiveType: "4g", saveData: true } },
]) {
  test(`nothing is prefetched ${label}, and prefetching starts when that changes`, async ({ page }) => {
    const good = { effectiveType: "4g", saveData: false };
    await watchPrefetching(page);
    await fakeConnection(page, good);
    await openHome(page);
    await changeConnection(page, poor);
    await waitPastIdle(page);
    await expect(prefetchLinks(page)).toHaveCount(0);
    await changeConnection(page, good);
    await expect(prefetchLinks(page).first()).toBeAttached();
  });
}

test("nothing is prefetched offline, and prefetching starts back online", async ({ page, context }) => {
  await watchPrefetching(page);
  await openHome(page);
  await context.setOffline(true);
  await waitPastIdle(page);
  await expect(prefetchLinks(page)).toHaveCount(0);
  await context.setOffline(false);
  await expect(prefetchLinks(page).first()).toBeAttached();
});
