import { afterEach, expect, test, vi } from "vitest";

const PRODUCTION_ENV = {
  APP_MODE: "production",
  APP_ORIGIN: "https://id.example.jp",
  SESSION_SECRETS: "s".repeat(32),
  DATABASE_URL: "postgres://db/app",
  COGNITO_REGION: "ap-northeast-1",
  COGNITO_USER_POOL_ID: "pool",
  COGNITO_CLIENT_ID: "client",
  SMTP_URL: "smtp://mail:25",
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

async function runGuard(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  // A fresh module graph, so the configuration is parsed from this test's environment.
  const { requireDevTools } = await import("~/routing/dev-tools-only.server");
  try {
    requireDevTools();
    return { reached: true, status: 200 };
  } catch (thrown) {
    // React Router turns a thrown data(…, { status }) into that status for the error boundary.
    const init = (thrown as { init?: ResponseInit | null }).init;
    return { reached: false, status: init?.status ?? -1 };
  }
}

test("the mailbox, demo and design-debug pages answer 404 in production", async () => {
  expect(await runGuard(PRODUCTION_ENV)).toEqual({ reached: false, status: 404 });
});

test("they are served in development and preview", async () => {
  expect(await runGuard({ APP_MODE: "preview" })).toEqual({ reached: true, status: 200 });
  expect(await runGuard({ APP_MODE: "dev" })).toEqual({ reached: true, status: 200 });
});
