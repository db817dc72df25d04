import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type SQL, sql } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve("db/migrations");
/** Any constant works; it only has to be the same in every instance that migrates. */
const MIGRATION_LOCK_KEY = 727_310_001;
/** A query that waits longer than this is a fault (database down or overloaded), not a slow page. */
const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * PostgreSQL through postgres.js when a URL is given, otherwise embedded PGlite in `${dataDir}/pglite`.
 * PGlite allows one process per data directory: a second one would corrupt it.
 */
export function openDatabase(options: { databaseUrl?: string; dataDir: string }): DatabaseHandle {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: 10,
      connect_timeout: 5,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { statement_timeout: STATEMENT_TIMEOUT_MS, application_name: "member-account" },
    });
    const db = drizzlePostgres({ client, schema, casing: "snake_case" });
    return {
      db,
      kind: "postgres",
      // Several instances may start at once: one migrates while the others wait on the advisory lock.
      migrate: async () => {
        const lockConnection = await client.reserve();
        try {
          await lockConnection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
          await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
        } finally {
          await lockConnection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
          lockConnection.release();
        }
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const client = new PGlite(path.resolve(options.dataDir, "pglite"));
  const db = drizzlePglite({ client, schema, casing: "snake_case" });
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => client.close(),
  };
}

/**
 * Reads a query's rows in batches of `batchRows` as the caller iterates, so a download holds one batch in memory
 * whatever the result's size; ending the iteration early (break, `return()`) closes the cursor. Rows come as the
 * driver returns them, keyed by the result's column names (no Drizzle mapping: alias computed columns).
 */
export type RowCursor = <Row>(query: SQL, batchRows: number) => AsyncIterable<Row[]>;

/** Renders Drizzle SQL to text and parameters as the app's Drizzle instances do (snake_case names). */
const dialect = new PgDialect({ casing: "snake_case" });
/**
 * A download may outlast the pool's STATEMENT_TIMEOUT_MS by far (200,000 rows to a slow link): its connection gets
 * this instead, for the time it holds the cursor.
 */
const CURSOR_STATEMENT_TIMEOUT_MS = 60 * 60 * 1000;
let cursorSequence = 0;

/** The row cursor of a database opened by openDatabase (PGlite or postgres.js underneath). */
export function rowCursorFor(db: Database): RowCursor {
  const client = (db as unknown as { $client: PGlite | postgres.Sql }).$client;
  return client instanceof PGlite ? pgliteCursor(client) : postgresCursor(client);
}

/**
 * postgres.js's own cursor, on a connection reserved for it: never inside `sql.begin` (porsager/postgres#1054), and
 * a connection of its own can take a longer statement timeout. The connection is the pool's until the iteration
 * ends, so callers cap how many run at once (app/domain/member-export.server.ts).
 */
function postgresCursor(client: postgres.Sql): RowCursor {
  return async function* <Row>(query: SQL, batchRows: number) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const connection = await client.reserve();
    try {
      await connection.unsafe(`set statement_timeout = ${CURSOR_STATEMENT_TIMEOUT_MS}`);
      for await (const batch of connection
        .unsafe(text, params as postgres.ParameterOrJSON<never>[])
        .cursor(batchRows)) {
        yield batch as unknown as Row[];
      }
    } finally {
      await connection.unsafe(`set statement_timeout = ${STATEMENT_TIMEOUT_MS}`).catch(() => {});
      connection.release();
    }
  };
}

/**
 * PGlite has one connection for the whole app: a cursor inside a transaction would hold every other request off
 * for the whole download. A WITH HOLD cursor outlives its (implicit) transaction, so other queries run between two
 * FETCHes. Its cost: PostgreSQL materialises the whole result when the DECLARE commits (in work_mem, then temporary
 * files), so the query runs to the end up front; memory in Node still holds one batch.
 */
function pgliteCursor(client: PGlite): RowCursor {
  return async function* <Row>(query: SQL, batchRows: number) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const name = `row_cursor_${++cursorSequence}`;
    await client.query(`declare ${name} no scroll cursor with hold for ${text}`, params);
    try {
      for (;;) {
        const { rows } = await client.query<Row>(`fetch ${batchRows} from ${name}`);
        if (rows.length === 0) return;
        yield rows;
        if (rows.length < batchRows) return;
      }
    } finally {
      await client.query(`close ${name}`).catch(() => {});
    }
  };
}

/** True when a trivial query answers: used by /readyz/. */
export async function isDatabaseReachable(db: Database): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * postgres.js's connection failures and PostgreSQL's "cannot serve now" classes (57P admin shutdown/cannot
 * connect, 53 insufficient resources, 08 connection exception, 57014 statement timeout). Drizzle wraps driver
 * errors, so the cause chain is searched.
 */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57014",
]);

/** Whether an error means the database could not serve the query (down, overloaded), rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || /^(08|53|57P)/.test(code))) return true;
  }
  return false;
}
