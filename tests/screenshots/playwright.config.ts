import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { ensureFreshBuild } from "../support/build-freshness";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";

/**
 * `npm run screenshots`: the main pages in both languages saved as PNG files under
 * screenshots/ (ignored by git), for a person to look at. Served like the e2e suite: the production build in
 * `preview` mode on a fresh data directory, with the Cognito stand-in the spec creates its members in; the build is
 * made first when its sources changed since.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
ensureFreshBuild(ROOT);

/** A port nobody listens on now, found by a short child process because the config is read synchronously. */
function freePort(): number {
  const script =
    "const s = require('node:net').createServer();" +
    "s.listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); });";
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

// Workers load this file again: ports and data directory are chosen once, in the runner, and inherited via env.
process.env.SCREENSHOT_PORT ??= String(freePort());
process.env.SCREENSHOT_STANDIN_PORT ??= String(freePort());
process.env.SCREENSHOT_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "member-account-screenshots-"));

const PORT = Number(process.env.SCREENSHOT_PORT);
export const SCREENSHOT_STANDIN_PORT = Number(process.env.SCREENSHOT_STANDIN_PORT);
/** The app the screenshots are taken of, for the helpers that reach it over HTTP (the staff's sign-in). */
export const SCREENSHOT_APP = { url: `http://localhost:${PORT}`, standInPort: SCREENSHOT_STANDIN_PORT };

export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  timeout: 300_000,
  use: {
    ...devices["Desktop Chrome"],
    locale: "ja-JP",
    baseURL: `http://localhost:${PORT}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: {
    command: "node --import tsx app/server/dev-entry.ts --mode=preview",
    cwd: ROOT,
    url: `http://localhost:${PORT}/healthz/`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      APP_ORIGIN: `http://localhost:${PORT}`,
      DATA_DIR: process.env.SCREENSHOT_DATA_DIR,
      STANDIN_COGNITO_PORT: String(SCREENSHOT_STANDIN_PORT),
      LOG_LEVEL: "warn",
      // The staff dashboard shows the members the spec creates rather than figures cached before them.
      ADMIN_DASHBOARD_MAX_AGE_SECONDS: "0",
      NODE_ENV: "production",
    },
  },
});
