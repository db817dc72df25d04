import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/** What browsers download: React Router's client build. */
const CLIENT_ASSETS = "build/client/assets";

/**
 * The name Zod's core gives its base schema class, a string that survives minification: a client file holding it
 * holds Zod, which would take a large share of a form page's JavaScript budget. Forms are validated by their
 * actions; pages import choices from app/domain/forms/form-choices.ts and constraints from the loader, never a
 * schema module.
 */
const ZOD_MARKER = "$ZodType";

test("no JavaScript the browser downloads contains Zod", () => {
  expect(existsSync(CLIENT_ASSETS), `${CLIENT_ASSETS}: run npm run build first`).toBe(true);
  const scripts = readdirSync(CLIENT_ASSETS).filter((name) => name.endsWith(".js"));
  expect(scripts.some((name) => name.startsWith("entry.client-"))).toBe(true);
  const withZod = scripts.filter((name) => readFileSync(path.join(CLIENT_ASSETS, name), "utf8").includes(ZOD_MARKER));
  expect(withZod).toEqual([]);
});
