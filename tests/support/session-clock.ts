import { type Page, expect } from "@playwright/test";

const LABELS = {
  ja: { minutes: "ずらす分数", submit: "ずらす" },
  en: { minutes: "Minutes to move back", submit: "Move back" },
} as const;

/**
 * As if `minutes` had passed: the session clock on the dev tools' /demo/ page (404 in production) moves this
 * browser's password time, and its staff session's opening, last view and confirmation, and nobody else's, since
 * every spec shares the server.
 */
export async function passMinutes(page: Page, minutes: number, locale: "ja" | "en" = "ja") {
  const labels = LABELS[locale];
  const demo = locale === "en" ? "/en/demo/" : "/demo/";
  await page.goto(demo);
  await page.getByLabel(labels.minutes).fill(String(minutes));
  await page.getByRole("button", { name: labels.submit }).click();
  await expect(page).toHaveURL(new RegExp(`${demo}\\?moved=${minutes}$`));
}
