import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { requireDevTools } from "~/routing/dev-tools-only.server";
import type { AppServices } from "~/services.server";
import { servicesContext } from "~/router-context.server";
import { PRODUCTION_ENV } from "../../support/production-env";

function runGuard(env: Record<string, string>) {
  const context = new RouterContextProvider();
  // The guard reads the configuration only.
  context.set(servicesContext, { config: parseConfig(env) } as AppServices);
  try {
    requireDevTools(context);
    return { reached: true, status: 200 };
  } catch (thrown) {
    // React Router turns a thrown data(…, { status }) into that status for the error boundary.
    const init = (thrown as { init?: ResponseInit | null }).init;
    return { reached: false, status: init?.status ?? -1 };
  }
}

test("the mailbox, demo and design-debug pages answer 404 in production", () => {
  expect(runGuard(PRODUCTION_ENV)).toEqual({ reached: false, status: 404 });
});

test("they are served in development and preview", () => {
  expect(runGuard({ APP_MODE: "preview" })).toEqual({ reached: true, status: 200 });
  expect(runGuard({ APP_MODE: "dev" })).toEqual({ reached: true, status: 200 });
});
