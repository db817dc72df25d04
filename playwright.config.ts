import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { ensureFreshBuild } from "./tests/support/build-freshness";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./tests/support/chromium";

/**
 * One production build served once (`preview` mode: the production server on embedded defaults with a fresh
 * data directory) for every e2e test. Each test runs with JavaScript on and again with it off, but for the specs
 * each project's testIgnore names.
 */
const PORT = Number(process.env.E2E_PORT ?? 4173);
/** Tests create their members directly in the stand-in (tests/support/test-members.ts), so its port is fixed. */
export const STANDIN_PORT = Number(process.env.E2E_STANDIN_PORT ?? 4174);
/** The e2e siblings' signing secret (Standard Webhooks: whsec_ and the base64 of 24 random bytes). */
const E2E_WEBHOOK_SECRET = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
/** The served app and its stand-in, for test support that works on both (tests/support/staff-api-access.ts). */
export const E2E_APP = { url: `http://localhost:${PORT}`, standInPort: STANDIN_PORT };
// The server below serves the compiled build: rebuilt first when its sources changed since (in the runner; workers
// loading this file again find it fresh).
ensureFreshBuild();
// Workers load this file again: the data directory is chosen once, in the runner, and inherited via env.
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "member-account-e2e-"));

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  // A failing test runs once more, recording a trace for whoever reads the failure; it fails the run even when the
  // second run passes (a flaky test is a defect to fix). Tracing every test would cost about a third of the run's CPU.
  retries: 1,
  failOnFlakyTests: true,
  reporter: [["list"]],
  timeout: 30_000,
  // Assertions wait for what the page shows; a loaded CI machine can take longer than the default 5 s to get there.
  expect: { timeout: 10_000 },
  use: {
    // A Japanese browser unless a test says otherwise (the root redirects English browsers to /en/).
    locale: "ja-JP",
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    trace: "on-first-retry",
  },
  projects: [
    {
      name: "js-on",
      use: { ...devices["Desktop Chrome"], locale: "ja-JP" },
      // A document without scripts (its first test proves it): JavaScript changes nothing it shows.
      testIgnore: ["api-reference.spec.ts"],
    },
    {
      name: "js-off",
      use: { ...devices["Desktop Chrome"], locale: "ja-JP", javaScriptEnabled: false },
      // Every form is used without JavaScript by the other specs. These have none, or need the page's script:
      // the layout tour and axe run inside the page (the server-rendered layout is the same without JavaScript, less
      // the Subject ID's copy button that only the script adds), prefetching is the script at work, and URLs,
      // redirects, headers and language links are the server's answers either way.
      testIgnore: [
        "layout.spec.ts",
        "layout-overflow.spec.ts",
        "accessibility.spec.ts",
        "prefetch.spec.ts",
        "urls-and-languages.spec.ts",
      ],
    },
  ],
  webServer: {
    // Staff's legacy-account import runs first, as in production, so legacy members can sign in.
    command:
      "node build/http-server/legacy-import.js tests/fixtures/legacy-accounts.csv && " +
      // The account events the deliveries page's spec reads (tests/support/seed-e2e-events.ts).
      "node --import tsx tests/support/seed-e2e-events.ts && " +
      "node --import tsx app/server/dev-entry.ts --mode=preview",
    url: `http://localhost:${PORT}/healthz/`,
    reuseExistingServer: false,
    // The legacy import, then the server: generous, since a busy CI machine can take over a minute.
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      APP_ORIGIN: `http://localhost:${PORT}`,
      DATA_DIR: process.env.E2E_DATA_DIR,
      STANDIN_COGNITO_PORT: String(STANDIN_PORT),
      LOG_LEVEL: "warn",
      // Stopped once the tests are done: no load balancer to tell first (server-process.ts).
      SHUTDOWN_DRAIN_SECONDS: "0",
      // The dashboard's figures are computed on every view, so the staff test sees the members it seeded.
      ADMIN_DASHBOARD_MAX_AGE_SECONDS: "0",
      // Slow on purpose: the CSV import's test sees a job running (progress, estimate, cancel) before it ends.
      CSV_IMPORT_CREATIONS_PER_SECOND: "2",
      // Every test's browser signs in from 127.0.0.1, so the per-client limits would count the whole suite rather
      // than a client (the limits have tests of their own: tests/integration/*rate-limits.test.ts).
      RATE_LIMIT_SIGN_IN_PER_IP: "100000",
      RATE_LIMIT_SIGN_UP_PER_IP: "100000",
      RATE_LIMIT_CODE_CHECK_PER_IP: "100000",
      NODE_ENV: "production",
      SERVICE_HOSTS_DATA: "data.example.test",
      SERVICE_ORIGIN_DATA: "https://data.example.test",
      SERVICE_HOSTS_COMPE: "compe.example.test",
      SERVICE_HOSTS_ONLINE: "online.example.test",
      SERVICE_HOSTS_SHOP: "shop.example.test",
      // Two siblings with webhooks, for the deliveries page (tests/e2e/admin-events.spec.ts): nothing listens on
      // port 9, and they hear only the purge's event, which no journey records.
      SERVICE_WEBHOOK_URL_ONLINE: "http://127.0.0.1:9/online/account-events",
      SERVICE_WEBHOOK_SECRETS_ONLINE: E2E_WEBHOOK_SECRET,
      SERVICE_WEBHOOK_EVENTS_ONLINE: "member.deleted",
      SERVICE_WEBHOOK_URL_COMPE: "http://127.0.0.1:9/compe/account-events",
      SERVICE_WEBHOOK_SECRETS_COMPE: E2E_WEBHOOK_SECRET,
      SERVICE_WEBHOOK_EVENTS_COMPE: "member.deleted",
    },
  },
});
