/**
 * Debian's Chromium, which Playwright drives here because `npx playwright install` cannot download a browser on
 * these machines; the flags keep a headless run from reaching the network or a GPU on its own.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
