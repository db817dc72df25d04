import { type Browser, chromium } from "@playwright/test";
import { afterAll, beforeAll, expect, test } from "vitest";
import { printTable } from "../../bench/bench-support";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../support/chromium";
import {
  JAVASCRIPT_BUDGET_KB,
  PAGE_WEIGHT_DEVICE_LIMIT,
  PAGE_WEIGHT_HEADER,
  type PageWeight,
  isWithinBudget,
  pageWeightRow,
  weighEveryPage,
} from "../../support/page-javascript";
import { type ServerProcess, startServerProcess } from "../../support/server-process";

// The production build (npm test builds first) in preview mode, weighed in Debian's Chromium as a member's browser
// loads it: every page, both languages, signed out, signed in, on the device-limit screen and as staff.
let server: ServerProcess;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServerProcess("preview", {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      DEVICE_LIMIT: PAGE_WEIGHT_DEVICE_LIMIT,
    }),
    chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test(`no page loads more than ${JAVASCRIPT_BUDGET_KB} kB of gzipped JavaScript`, async () => {
  // Posts must come from APP_ORIGIN, which names localhost.
  const origin = `http://localhost:${new URL(server.url).port}`;
  const weights = await weighEveryPage(browser, origin, server.standInPort);
  console.log(`JavaScript each page loads (gzip level 9, inline scripts included, kB = 1000 B)`);
  printTable(PAGE_WEIGHT_HEADER, weights.map(pageWeightRow));

  const statuses = (weight: PageWeight) => `${weight.page.label}: ${weight.ja.status} ${weight.en.status}`;
  const expectedStatuses = ({ page }: PageWeight) => `${page.label}: ${page.status ?? 200} ${page.status ?? 200}`;
  expect(weights.map(statuses)).toEqual(weights.map(expectedStatuses));
  expect(weights.filter((weight) => !isWithinBudget(weight)).map(pageWeightRow)).toEqual([]);
}, 300_000);
