import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { seedPgliteDataDir } from "./pglite-template";
import { makeTempDir } from "./temp-dir";

/**
 * One migrated database for a test file: PGlite in a temporary directory, or the PostgreSQL server named by
 * TEST_DATABASE_URL (as `.ci/run` does for the *.db.test.ts files). Returns a getter for use inside tests.
 *
 * `ownDatabase`: on PostgreSQL, a database of the file's own, created fresh beside TEST_DATABASE_URL's and
 * dropped after, for tests that assert on whole tables (counts, every row of a list) or work a queue (the mail
 * outbox: a send takes every due row), and so cannot share them with the files running alongside.
 */
export function useTestDatabase(label: string, options: { ownDatabase?: boolean } = {}): () => DatabaseHandle {
  const temp = makeTempDir(label);
  let handle: DatabaseHandle | undefined;
  let ownDatabase: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    let databaseUrl = process.env.TEST_DATABASE_URL;
    if (databaseUrl && options.ownDatabase) {
      ownDatabase = await createOwnDatabase(databaseUrl, label);
      databaseUrl = ownDatabase.url;
    }
    handle = openTestDatabase(temp.dir, databaseUrl);
    await handle.migrate();
  });
  afterAll(async () => {
    await handle?.close();
    await ownDatabase?.drop();
    temp.remove();
  });
  return () => {
    if (!handle) throw new Error("The test database is opened in beforeAll");
    return handle;
  };
}

/**
 * openDatabase for a test: the PostgreSQL at `databaseUrl` (TEST_DATABASE_URL by default) or, without one, PGlite in
 * `dataDir`, started from the run's migrated template (pglite-template.ts).
 */
export function openTestDatabase(dataDir: string, databaseUrl = process.env.TEST_DATABASE_URL): DatabaseHandle {
  if (!databaseUrl) seedPgliteDataDir(dataDir);
  return openDatabase({ databaseUrl, dataDir });
}

/** A database of its own on a shared PostgreSQL server, named after the label; replaced if a run left it. */
export async function createOwnDatabase(sharedUrl: string, label: string) {
  const url = new URL(sharedUrl);
  const name = `${url.pathname.slice(1)}_${label}`.replace(/[^a-z0-9_]/gi, "_").toLowerCase();
  const server = postgres(sharedUrl, { max: 1, onnotice: () => {} });
  // A database left by an interrupted run is replaced.
  await server.unsafe(`drop database if exists "${name}" with (force)`);
  await server.unsafe(`create database "${name}"`);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await server.unsafe(`drop database if exists "${name}" with (force)`);
      await server.end();
    },
  };
}
