import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * What `npm run build` is made from: the app and the database code it bundles, the translations, the static files,
 * the configuration of both builds and the installed dependencies.
 */
export const BUILD_INPUTS = [
  "app",
  "db",
  "locales",
  "public",
  "package.json",
  "package-lock.json",
  "react-router.config.ts",
  "vite.config.ts",
  "tsconfig.json",
];
/** The build's first file (React Router's server build) and its last (the compiled HTTP server). */
const BUILD_OUTPUTS = ["build/server/index.js", "build/http-server/start-server.js"];

function modifiedAtMs(file: string): number | null {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest of a file or a folder and everything in it (a folder's own time counts: a deleted file changes it). */
function newestUnder(entry: string): { file: string; mtimeMs: number } | null {
  const own = modifiedAtMs(entry);
  if (own === null) return null;
  let newest = { file: entry, mtimeMs: own };
  if (!statSync(entry).isDirectory()) return newest;
  for (const name of readdirSync(entry, { recursive: true, encoding: "utf8" })) {
    const file = path.join(entry, name);
    const mtimeMs = modifiedAtMs(file);
    if (mtimeMs !== null && mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

/** Why the build under `root` does not match its sources, or null when it does. */
export function staleBuildReason(root: string): string | null {
  const builtAt = BUILD_OUTPUTS.map((output) => modifiedAtMs(path.join(root, output)));
  if (builtAt.some((time) => time === null)) return "there is no build";
  const oldestOutputMs = Math.min(...(builtAt as number[]));
  for (const input of BUILD_INPUTS) {
    const newest = newestUnder(path.join(root, input));
    if (newest && newest.mtimeMs > oldestOutputMs) {
      return `${path.relative(root, newest.file)} changed after the build`;
    }
  }
  return null;
}

/**
 * Tests that serve the compiled build (integration and e2e) would otherwise test yesterday's code without a word:
 * when the build is missing or older than its sources, this builds it, once, before any test starts. `npm test`
 * builds first, so there it finds the build fresh and builds nothing.
 */
export function ensureFreshBuild(root = process.cwd()): void {
  const reason = staleBuildReason(root);
  if (!reason) return;
  console.log(`\n  The tests serve the compiled build, and ${reason}: running \`npm run build\` first.\n`);
  // As a person runs it: Vitest's NODE_ENV=test would make Vite bundle React's development build for the browser.
  const { NODE_ENV: _testRunnersMode, ...env } = process.env;
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", env });
}
