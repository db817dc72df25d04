import { readdirSync } from "node:fs";
import { type Logger, createLogger, createServer } from "vite";
import { afterAll, expect, test } from "vitest";
import { makeTempDir } from "../../support/temp-dir";

/**
 * A newcomer's first visit in `npm run dev` loads every page's browser modules without Vite bundling its
 * dependencies again: one it had not pre-bundled as it started makes it answer the page's other imports 504
 * "Outdated Optimize Dep" and reload the page (vite.config.ts, `optimizeDeps.include`). The dev server starts as on
 * a fresh clone (an empty dependency cache of its own), then every module the browser may load is transformed as the
 * browser would ask for it: the entry, the root, every layout and route module, and all they import, on-demand
 * imports included. No dependency may turn up that was not pre-bundled at start.
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

const browserEntries = () => [
  "/app/entry.client.tsx",
  "/app/root.tsx",
  ...["app/layouts", "app/routes"].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".tsx"))
      .map((file) => `/${dir}/${file}`),
  ),
];

test("a first visit in the dev server finds every browser dependency already pre-bundled", async () => {
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
    const known = () => [...Object.keys(optimizer.metadata.optimized), ...Object.keys(optimizer.metadata.discovered)];
    const atStart = new Set(known());

    const failures: string[] = [];
    const seen = new Set<string>();
    const queue = browserEntries();
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
        // The pre-bundled dependencies are the optimizer's; the app's own modules are followed.
        if (imported.file?.startsWith(cache.dir) || imported.url.includes("/node_modules/")) continue;
        queue.push(imported.url);
      }
    }

    expect(seen.size, "modules a browser may load").toBeGreaterThan(50);
    expect(failures, logger.lines.join("\n")).toEqual([]);
    const foundLate = known().filter((name) => !atStart.has(name));
    expect(foundLate, "browser dependencies to add to optimizeDeps.include in vite.config.ts").toEqual([]);
    expect(logger.lines.filter((line) => /optimized dependencies changed|reloading/.test(line))).toEqual([]);
  } finally {
    await server.close();
  }
}, 120_000);
