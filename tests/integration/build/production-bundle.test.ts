import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/** What `npm run build` ships: React Router's server build and the compiled HTTP server and jobs. */
const PRODUCTION_DIRS = ["build/server", "build/http-server"];

/** Packages and functions only the development stand-ins use (tests/support/stand-ins). */
const STAND_IN_MARKERS = [
  "cognito-local",
  "smtp-server",
  "postal-mime",
  "tests/support",
  "createStandInHarness",
  "startCognitoStandIn",
  "startEmbeddedStack",
  "startMailCapture",
  "provisionStandInPool",
  "addMailboxEntry",
  "listMailboxEntries",
];

function javaScriptFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".js"))
    .map((name) => path.join(dir, name));
}

test("the production build contains none of the development stand-ins", () => {
  for (const dir of PRODUCTION_DIRS) expect(existsSync(dir), `${dir}: run npm run build first`).toBe(true);
  const files = PRODUCTION_DIRS.flatMap(javaScriptFiles);
  expect(files.map((file) => path.basename(file))).toContain("main.js");
  const found = files.flatMap((file) => {
    const code = readFileSync(file, "utf8");
    return STAND_IN_MARKERS.filter((marker) => code.includes(marker)).map((marker) => `${file}: ${marker}`);
  });
  expect(found).toEqual([]);
});
