import { afterEach, expect, test, vi } from "vitest";
import { PRODUCTION_ENV } from "../support/production-env";


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
