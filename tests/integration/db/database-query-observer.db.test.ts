import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DatabaseHandle, csvCopyFor, openDatabase } from "~db/client.server";
import { memberProfiles } from "~db/schema";
import { startTestPostgres } from "../../support/postgres-server";
import { makeTempDir } from "../../support/temp-dir";

/**
 * The database's hook for the metrics (openDatabase's observeQuery, db/client.server.ts): every query the Drizzle
 * instance sends is reported, on the pool and inside transactions and savepoints, failures too, and the reporting
 * changes nothing of what Drizzle gets back (mapped rows, transactions, the CSV COPY beside it). On PGlite and on
 * PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster from the local binaries; skipped on a machine with neither).
 */
const postgres = await startTestPostgres();
afterAll(() => postgres?.stop());

const DRIVERS = [
  { driver: "PGlite", databaseUrl: () => undefined, skip: false },
  { driver: "PostgreSQL", databaseUrl: () => postgres?.url, skip: !postgres },
];

describe.each(DRIVERS)("$driver", ({ databaseUrl, skip }) => {
  /** Each reported query's outcome once it settled, in the order they were asked for. */
  let outcomes: ("pending" | "success" | "error")[] = [];
  let handle: DatabaseHandle;
  const temp = makeTempDir("query-observer");

  // Migrating PGlite takes longer than a test may.
  beforeAll(async () => {
    if (skip) return;
    handle = openDatabase({
      databaseUrl: databaseUrl(),
      dataDir: temp.dir,
      observeQuery: (query) => {
        const index = outcomes.push("pending") - 1;
        query.then(
          () => (outcomes[index] = "success"),
          () => (outcomes[index] = "error"),
        );
      },
    });
    await handle.migrate();
  });

  afterAll(async () => {
    await handle?.close();
    temp.remove();
  });

  test.skipIf(skip)("every query is reported, inside transactions and savepoints too, with its outcome", async () => {
    outcomes = [];
    const sub = crypto.randomUUID();
    const profile = { familyName: "山田", givenName: "太郎", preferredLanguage: "ja" as const, referrerService: null };

    await handle.db.insert(memberProfiles).values({ sub, ...profile });
    expect(outcomes).toEqual(["success"]);

    const inTransaction = await handle.db.transaction(async (tx) => {
      await tx.update(memberProfiles).set({ givenName: "花子" }).where(eq(memberProfiles.sub, sub));
      await tx.transaction(async (savepoint) => {
        await savepoint.update(memberProfiles).set({ familyName: "佐藤" }).where(eq(memberProfiles.sub, sub));
      });
      return tx.select().from(memberProfiles).where(eq(memberProfiles.sub, sub));
    });
    // Drizzle's rows come back mapped as ever: the reporting does not change how they are read.
    expect(inTransaction).toEqual([expect.objectContaining({ sub, familyName: "佐藤", givenName: "花子" })]);
    // The update, the savepoint's update and the select at least (PGlite runs its savepoint statements as queries).
    expect(outcomes.length).toBeGreaterThanOrEqual(4);
    expect(outcomes.every((outcome) => outcome === "success")).toBe(true);

    const before = outcomes.length;
    await expect(handle.db.execute(sql`select * from no_such_table`)).rejects.toThrow();
    expect(outcomes.slice(before)).toEqual(["error"]);
  });

  test.skipIf(skip)("the CSV COPY still works beside the reported queries", async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of csvCopyFor(handle.db)(sql`select 'a' as one, 'b' as two`, { header: true })) {
      chunks.push(chunk);
    }
    expect(Buffer.concat(chunks).toString()).toBe("one,two\na,b\n");
    expect(outcomes.includes("pending")).toBe(false);
  });
});
