import { type BrowserContext, test as base, expect } from "@playwright/test";

/** Lets a test name the browser errors it provokes on purpose; every other one fails it. */
export interface BrowserErrors {
  /**
   * Accepts console errors and uncaught page errors matching `pattern`, which is tried on the message followed by
   * the URL it came from when known (`message (url)`), so a pattern can name both what failed and where.
   */
  allow(pattern: RegExp): void;
}

interface BrowserError {
  text: string;
  url: string | undefined;
}

/** Chromium's console line for any response with an error status, whatever the page makes of it. */
const CLIENT_ERROR_STATUS_LINE = /^Failed to load resource: the server responded with a status of 4\d\d\b/;
/** Requests whose 4xx answer is a page the test reads (a form's 400 with its errors, a 404 page, a 429). */
const PAGE_ANSWER_TYPES = new Set(["document", "fetch"]);

/**
 * Playwright's `test`, failing any test in which a page logs a console error or throws an uncaught error that the test
 * did not allow. Every browser context the test opens is watched: the `page` fixture's and those made with
 * `browser.newContext()` (several tests hold two browsers at once).
 *
 * Not errors: Chromium's "Failed to load resource … status of 4xx" lines for documents and React Router's data
 * requests. Those are the app's answers (a form's 400, a 404 page, a 429), which the tests assert on the page; the
 * same line for a script, style sheet, image or font, and any 5xx, still fails the test.
 */
export const test = base.extend<{ browserErrors: BrowserErrors }>({
  browserErrors: [
    async ({ browser }, use) => {
      const seen: BrowserError[] = [];
      const pageAnswers = new Set<string>();
      const allowed: RegExp[] = [];
      const watch = (context: BrowserContext) => {
        context.on("console", (message) => {
          if (message.type() === "error") seen.push({ text: message.text(), url: message.location().url || undefined });
        });
        context.on("weberror", (error) => seen.push({ text: String(error.error()), url: error.page()?.url() }));
        context.on("response", (response) => {
          if (response.status() >= 400 && response.status() < 500) {
            if (PAGE_ANSWER_TYPES.has(response.request().resourceType())) pageAnswers.add(response.url());
          }
        });
      };
      // The `page` fixture's context is created after this auto fixture starts, so it comes through here too.
      browser.on("context", watch);
      await use({ allow: (pattern) => allowed.push(pattern) });
      browser.off("context", watch);
      // Judged after the test, once every response and console line has arrived, whichever came first.
      const unexpected = seen
        .filter(({ text, url }) => !(CLIENT_ERROR_STATUS_LINE.test(text) && url && pageAnswers.has(url)))
        .map(({ text, url }) => (url ? `${text} (${url})` : text))
        .filter((error) => !allowed.some((pattern) => pattern.test(error)));
      expect(unexpected, "browser console errors and uncaught page errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * For a flow shown once in each language: Japanese runs with JavaScript (project js-on) and English without it
 * (js-off). The language changes the texts, not the way a form posts, so each way of posting and each language is
 * still used once; the missing-text checks hold every page's texts in both languages.
 */
export function inOneProjectFor(locale: "ja" | "en") {
  const project = locale === "ja" ? "js-on" : "js-off";
  test.skip(test.info().project.name !== project, `${locale === "ja" ? "Japanese" : "English"} runs in ${project}`);
}

/**
 * For a test whose proof is the server's answer to a forged request (another member's id posted by hand): the browsers
 * only sign in, which every other spec does with and without JavaScript, so it runs once, without (project js-off).
 */
export function onlyWithoutJavaScript() {
  test.skip(test.info().project.name !== "js-off", "the server's answer to a forged post is the same with JavaScript");
}
