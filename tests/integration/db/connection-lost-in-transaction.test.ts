import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { startCuttableProxy, startTestPostgres } from "../../support/postgres-server";
import { makeTempDir } from "../../support/temp-dir";

/**
 * A transaction whose connection is lost fails, and the process goes on: postgres.js would otherwise write to the
 * closed connection (its ROLLBACK, or the callback's next query) and throw from a setImmediate, which no caller can
 * catch (db/client.server.ts, `drizzleClient`). Here that would fail the run as an unhandled error, or leave the
 * callback's query unsettled. Runs on a throwaway cluster (or TEST_DATABASE_URL's server) through a proxy the test
 * cuts; not a *.db.test.ts, since a second pass on CI's PostgreSQL would prove nothing new.
 */
const postgresServer = await startTestPostgres();
let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
let database: DatabaseHandle;
let direct: postgres.Sql;
const temp = makeTempDir("connection-lost");

beforeAll(async () => {
  if (!postgresServer) return;
  const target = new URL(postgresServer.url);
  proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port) });
  const viaProxy = new URL(postgresServer.url);
  viaProxy.port = String(proxy.port);
  database = openDatabase({ databaseUrl: viaProxy.toString(), dataDir: temp.dir });
  direct = postgres(postgresServer.url, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await database?.close();
  await direct?.end();
  await proxy?.stop();
  await postgresServer?.stop();
  temp.remove();
});

/** Lets whatever postgres.js scheduled with setImmediate run (where the uncaught TypeError would come from). */
const afterImmediates = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

async function expectWorkingAgain() {
  await proxy.up();
  await expect(database.db.execute(sql`select 1 as one`)).resolves.toBeDefined();
}

test.skipIf(!postgresServer)("the connection closes between two queries of a transaction", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  let secondQuery: unknown = "not run";
  const transaction = database.db.transaction(async (tx) => {
    await tx.execute(sql`select 1`);
    holding = true;
    await held;
    secondQuery = await tx.execute(sql`select 2`).catch((error: unknown) => error);
  });

  await expect.poll(() => holding).toBe(true);
  await proxy.down();
  await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
  release();
  // Refused without being sent (Drizzle names the query and gives postgres.js's error as the cause).
  await expect.poll(() => secondQuery).toMatchObject({ cause: { code: "CONNECTION_CLOSED" } });
  await afterImmediates();
  await expectWorkingAgain();
});

test.skipIf(!postgresServer)("the connection closes while a transaction's query runs", async () => {
  const transaction = database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_sleep(30)`);
  });

  await expect.poll(() => sleepingQueries()).toBe(1);
  await proxy.down();
  await expect(transaction).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
  await afterImmediates();
  await expectWorkingAgain();
  await direct`select pg_cancel_backend(pid) from pg_stat_activity where query = 'select pg_sleep(30)'`;
});

async function sleepingQueries(): Promise<number> {
  const [row] = await direct<{ count: number }[]>`
    select count(*)::int as count from pg_stat_activity where query = 'select pg_sleep(30)' and state = 'active'`;
  return row!.count;
}
