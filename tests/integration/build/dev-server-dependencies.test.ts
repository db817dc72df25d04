import { readdirSync } from "node:fs";
import { type Logger, createLogger, createServer } from "vite";
import { afterAll, expect, test } from "vitest";
import { makeTempDir } from "../../support/temp-dir";

/**
 * A newcomer's first visit in `npm run dev` loads every page's browser modules without Vite bundling dependencies
 * again: a package it had not pre-bundled as it started makes it answer the page's other imports 504 "Outdated
 * Optimize Dep" and reload the page (vite.config.ts, `optimizeDeps`). The dev server starts as on a fresh clone (an
 * empty dependency cache of its own); then every module of app/ is transformed as a browser module, as the browser
 * asks for its modules and as React Router's dev server does with a page's server modules to collect its CSS.
 */

const cache = makeTempDir("vite-deps");
afterAll(() => cache.remove());

/** Vite's own log, kept to explain a failure. */
function recordingLogger(): Logger & { lines: string[] } {
  const logger = createLogger("info", { allowClearScreen: false });
  const lines: string[] = [];
  const record = (message: string) => void lines.push(message);
  return { ...logger, info: record, warn: record, warnOnce: record, error: record, lines };
}

/** The URLs of app/'s modules under `dirs` (relative to the repository root). */
const modulesUnder = (dirs: string[], pattern: RegExp) =>
  dirs.flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((file) => pattern.test(file))
      .map((file) => `/${dir}/${file}`),
  );

test("a first visit in the dev server finds every browser dependency pre-bundled and bundles nothing again", async () => {
  const logger = recordingLogger();
  const server = await createServer({
    configFile: "vite.config.ts",
    cacheDir: cache.dir,
    // No HMR socket: its fixed port would collide with a dev server already running on the machine.
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: "custom",
    customLogger: logger,
  });
  try {
    const client = server.environments.client;
    const optimizer = client.depsOptimizer!;
    await optimizer.init();
    await optimizer.scanProcessing;
    const bundled = () => Object.keys({ ...optimizer.metadata.optimized, ...optimizer.metadata.discovered }).sort();
    const atStart = bundled();

    // What the browser loads: the entry, the root, the layouts and routes, and all they import.
    const failures: string[] = [];
    const notPreBundled = new Set<string>();
    const seen = new Set<string>();
    const queue = ["/app/entry.client.tsx", "/app/root.tsx", ...modulesUnder(["app/layouts", "app/routes"], /\.tsx$/)];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      try {
        await client.transformRequest(url);
      } catch (error) {
        failures.push(`${url}: ${(error as Error).message}`);
        continue;
      }
      const module = await client.moduleGraph.getModuleByUrl(url);
      for (const imported of module?.importedModules ?? []) {
        if (imported.file?.startsWith(cache.dir)) continue;
        // A package file served as it is: a browser import the dev server did not pre-bundle.
        if (imported.url.includes("/node_modules/")) notPreBundled.add(imported.url.replace(/^.*\/node_modules\//, ""));
        else queue.push(imported.url);
      }
    }
    expect(seen.size, "modules a browser may load").toBeGreaterThan(50);
    expect(failures, logger.lines.join("\n")).toEqual([]);
    expect([...notPreBundled], "browser imports to add to optimizeDeps.include in vite.config.ts").toEqual([]);

    // What React Router's dev server transforms as browser modules to collect a page's CSS: its server modules too.
    for (const url of modulesUnder(["app"], /\.tsx?$/)) {
      if (!seen.has(url)) await client.transformRequest(url).catch(() => undefined);
    }
    expect(bundled(), "dependencies bundled after the start").toEqual(atStart);
    expect(
      logger.lines.filter((line) => /new dependencies|optimized dependencies changed|reloading/.test(line)),
    ).toEqual([]);
  } finally {
    await server.close();
  }
}, 120_000);
