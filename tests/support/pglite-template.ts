import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "~db/client.server";
import { makeTempDir } from "./temp-dir";

/**
 * A migrated PGlite database made once per Vitest run (tests/support/vitest-global-setup.ts), copied into each test
 * server's and test file's data directory. A fresh PGlite spends about 5 s of CPU creating its cluster (initdb, in
 * WebAssembly) before the migrations; the dozens of servers and files of a run would each pay it. A copy opens as
 * the same database would after its first start: the server's own migration step still runs and finds every
 * migration applied. The server's start on an empty data directory stays covered by the e2e server and the quick
 * start.
 */
const TEMPLATE_DIR_ENV = "TEST_PGLITE_TEMPLATE_DIR";
/** Where openDatabase keeps PGlite's cluster inside a data directory. */
const PGLITE_SUBDIR = "pglite";

/** Makes the migrated template and names it to this process's environment, which the test workers inherit. */
export async function createPgliteTemplate(): Promise<{ remove: () => void }> {
  const temp = makeTempDir("pglite-template");
  const handle = openDatabase({ dataDir: temp.dir });
  try {
    await handle.migrate();
  } finally {
    await handle.close();
  }
  process.env[TEMPLATE_DIR_ENV] = temp.dir;
  return {
    remove: () => {
      delete process.env[TEMPLATE_DIR_ENV];
      temp.remove();
    },
  };
}

/**
 * Copies the run's template into `dataDir`, where PGlite will look for its cluster, unless the directory already has
 * one. Without a template (a bench, a single file run outside Vitest's setup) PGlite creates its own as in
 * production.
 */
export function seedPgliteDataDir(dataDir: string): void {
  const template = process.env[TEMPLATE_DIR_ENV];
  const target = path.join(dataDir, PGLITE_SUBDIR);
  if (!template || existsSync(target)) return;
  cpSync(path.join(template, PGLITE_SUBDIR), target, { recursive: true });
}
