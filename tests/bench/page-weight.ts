/**
 * The JavaScript every page makes a browser load, printed against the budget (`npm run bench` calls it after the
 * throughput runs). What is counted and how: tests/support/page-javascript.ts, which the budget test in `npm test`
 * (tests/integration/build/page-javascript-budget.test.ts) shares.
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import {
  JAVASCRIPT_BUDGET_KB,
  PAGE_WEIGHT_DEVICE_LIMIT,
  PAGE_WEIGHT_HEADER,
  isWithinBudget,
  kilobytes,
  pageWeightRow,
  weighEveryPage,
  weighPageJavaScript,
} from "../support/page-javascript";
import { type RunningServer, findFreePort, printTable, startPreviewServer } from "./bench-support";

/**
 * Starts its own preview server (its stand-in on a known port, for the members; the device limit the device-limit
 * screen needs), weighs every page in both languages and prints the table. `minimalOrigin`: a minimal React Router
 * page whose JavaScript (React and React Router alone) is printed for scale.
 */
export async function reportPageJavaScript(options: { minimalOrigin?: string } = {}) {
  const standInPort = await findFreePort();
  const app: RunningServer = await startPreviewServer({
    STANDIN_COGNITO_PORT: String(standInPort),
    DEVICE_LIMIT: PAGE_WEIGHT_DEVICE_LIMIT,
    // The weight does not depend on the database: PGlite, whatever DATABASE_URL the benchmark was given.
    DATABASE_URL: undefined,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const weights = await weighEveryPage(browser, app.origin, standInPort);
    console.log(
      `\nJavaScript each page loads in Chromium (gzip level 9, inline scripts included, kB = 1000 B), ` +
        `budget ${JAVASCRIPT_BUDGET_KB} kB\n`,
    );
    printTable(PAGE_WEIGHT_HEADER, weights.map(pageWeightRow));

    const heaviest = Math.max(...weights.flatMap((weight) => [weight.ja.gzipBytes, weight.en.gzipBytes]));
    const over = weights.filter((weight) => !isWithinBudget(weight)).length;
    console.log(
      `\nHeaviest page: ${kilobytes(heaviest)} kB of ${JAVASCRIPT_BUDGET_KB} kB; ` +
        (over ? `${over} page(s) OVER budget` : "every page within budget"),
    );
    if (options.minimalOrigin) {
      const context = await browser.newContext();
      const minimal = await weighPageJavaScript(context, `${options.minimalOrigin}/`);
      await context.close();
      console.log(
        `(A minimal React Router page loads ${kilobytes(minimal.gzipBytes)} kB: React and React Router alone.)`,
      );
    }
  } finally {
    await browser.close();
  }
}
