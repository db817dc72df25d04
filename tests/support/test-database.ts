import { afterAll, beforeAll } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/client.server";
import { makeTempDir } from "./temp-dir";

/**
 * One migrated database for a test file: PGlite in a temporary directory, or the PostgreSQL server named by
 * TEST_DATABASE_URL (as `.ci/run` does for the *.db.test.ts files). Returns a getter for use inside tests.
 */
export function useTestDatabase(label: string): () => DatabaseHandle {
  const temp = makeTempDir(label);
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    handle = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: temp.dir });
    await handle.migrate();
  });
  afterAll(async () => {
    await handle?.close();
    temp.remove();
  });
  return () => {
    if (!handle) throw new Error("The test database is opened in beforeAll");
    return handle;
  };
}
