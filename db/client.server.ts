import path from "node:path";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { PGlite } from "@electric-sql/pglite";
import { pgcrypto } from "@electric-sql/pglite/contrib/pgcrypto";
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
  /** Connections the pool may open; PGlite is one connection for the whole process. */
  maxConnections: number;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve("db/migrations");
/** Any constant works; it only has to be the same in every instance that migrates. */
const MIGRATION_LOCK_KEY = 727_310_001;
/** A query that waits longer than this is a fault (database down or overloaded), not a slow page. */
const STATEMENT_TIMEOUT_MS = 10_000;

/** postgres.js's pool size. */
const MAX_CONNECTIONS = 10;

/**
 * Told of every query the Drizzle instance sends, as the driver's pending result, when it is asked for (so its time
 * includes waiting for a connection, or for PGlite's one). It may attach handlers (then()) but must not hold it up.
 * Queries the client runs outside Drizzle (the CSV COPY, the migration lock) are not reported.
 */
export type QueryObserver = (query: PromiseLike<unknown>) => void;

/**
 * PostgreSQL through postgres.js when a URL is given, otherwise embedded PGlite in `${dataDir}/pglite`.
 * PGlite allows one process per data directory: a second one would corrupt it.
 */
export function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  observeQuery?: QueryObserver;
}): DatabaseHandle {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: MAX_CONNECTIONS,
      connect_timeout: 5,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { statement_timeout: STATEMENT_TIMEOUT_MS, application_name: "member-account" },
    });
    const db = drizzlePostgres({ client: drizzleClient(client, options.observeQuery), schema, casing: "snake_case" });
    return {
      db,
      kind: "postgres",
      maxConnections: MAX_CONNECTIONS,
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
  // pgcrypto: the migrations create it (hmac() signs the newsletter's unsubscribe links in the export's query).
  const client = new PGlite(path.resolve(options.dataDir, "pglite"), { extensions: { pgcrypto } });
  if (options.observeQuery) observePglite(client, options.observeQuery);
  const db = drizzlePglite({ client, schema, casing: "snake_case" });
  return {
    db,
    kind: "pglite",
    maxConnections: 1,
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => client.close(),
  };
}

/**
 * The postgres.js client Drizzle is given. Two things differ from the client itself, which the CSV COPY and the
 * migration lock use as it is (they reserve connections of their own):
 *
 * - Every query Drizzle sends is reported to `observe`: Drizzle sends each through `unsafe`, on the pool or on a
 *   transaction's (or savepoint's) connection. Reporting attaches then() to postgres.js's lazy query, which starts it
 *   a microtask later: Drizzle sets how it wants the rows (`.values()`) in the same tick as it calls `unsafe`, so
 *   nothing changes for it.
 * - Nothing more is sent on a transaction's connection once it is lost. postgres.js 3.4.9 writes to a closed
 *   transaction connection when asked to (the ROLLBACK it sends when the transaction's callback fails, or a query the
 *   callback sends after the close) and then throws from a setImmediate: an uncaught TypeError that ends the process
 *   (porsager/postgres#1154 and #1208, fix proposed in #1168). A database restart or a dropped connection during a
 *   transaction would take the instance down. So a transaction whose query failed for want of its connection, or
 *   that postgres.js ended because the connection closed, refuses its further queries at once, and its callback's
 *   outcome is not handed back to postgres.js (which would send the ROLLBACK, or the COMMIT): the transaction fails with
 *   the close itself, which postgres.js reports by rejecting begin(), and PostgreSQL rolls back what the connection had open.
 */
function drizzleClient(
  client: postgres.Sql,
  observe: QueryObserver | undefined,
  transaction?: TransactionConnection,
): postgres.Sql {
  type Method = (...args: unknown[]) => unknown;
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      const method = value as Method;
      if (key === "unsafe") {
        return (...args: unknown[]) => {
          if (transaction?.lost) return refusedQuery(transaction.lostWith);
          const query = method.apply(target, args) as PromiseLike<unknown>;
          if (transaction) query.then(undefined, (error: unknown) => transaction.noteFailure(error));
          observe?.(query);
          return query;
        };
      }
      // begin(fn), begin(options, fn), savepoint(fn), savepoint(name, fn): the callback, last, gets the connection.
      if (key === "begin" || key === "savepoint") {
        return (...args: unknown[]) => {
          if (transaction?.lost) return Promise.reject(transaction.lostWith);
          // A savepoint runs on its transaction's connection.
          const connection = transaction ?? new TransactionConnection();
          const run = args.at(-1) as Method;
          // Left pending once the connection is lost, whatever the callback did: postgres.js has already failed the
          // transaction with the close, and would send its COMMIT or ROLLBACK on the closed connection.
          const guardedRun = (scope: postgres.Sql) =>
            Promise.resolve()
              .then(() => run(drizzleClient(scope, observe, connection)))
              .then(
                (result) => (connection.lost ? new Promise(() => {}) : result),
                (error: unknown) => {
                  if (connection.lost) return new Promise(() => {});
                  throw error;
                },
              );
          const result = method.apply(target, [...args.slice(0, -1), guardedRun]) as Promise<unknown>;
          // begin() rejects, while the callback may still run, when the connection closes.
          if (key === "begin") result.then(undefined, (error: unknown) => connection.noteEnded(error));
          return result;
        };
      }
      return value;
    },
  });
}

/**
 * How a query fails when its connection is gone: postgres.js's own codes, and the socket's errors it passes on. Each
 * is followed by the socket's close, on which postgres.js rejects the transaction's begin().
 */
const CONNECTION_LOST_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
]);

/** What is known of one transaction's connection: whether it was lost, and with which error. */
class TransactionConnection {
  lost = false;
  lostWith: unknown = null;

  /** A query of the transaction failed: noted when it was for want of the connection (closed, reset). */
  noteFailure(error: unknown) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && CONNECTION_LOST_CODES.has(code)) this.noteEnded(error);
  }

  /** The transaction ended with `error` (after its callback, or while it still runs when the connection closed). */
  noteEnded(error: unknown) {
    if (this.lost) return;
    this.lost = true;
    this.lostWith = error;
  }
}

/** A query refused without being sent, shaped as Drizzle uses postgres.js's (awaited, or `.values()`). */
function refusedQuery(error: unknown) {
  const refused = Promise.reject(error);
  return Object.assign(refused, { values: () => refused });
}

/**
 * PGlite with every query Drizzle sends reported: Drizzle calls `query`, on the instance or on a transaction's
 * object. PGlite keeps its state in private fields, so its methods cannot run on a Proxy: the instance's own
 * `query` and `transaction` are replaced by reporting ones (what else uses the instance, the CSV COPY, is reported
 * too: PGlite has one connection, and a COPY holds it like any query).
 */
function observePglite(client: PGlite, observe: QueryObserver): void {
  const observedQuery =
    <Args extends unknown[], Result>(query: (...args: Args) => Promise<Result>) =>
    (...args: Args) => {
      const result = query(...args);
      observe(result);
      return result;
    };
  const query = client.query.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = observedQuery(query) as PGlite["query"];
  client.transaction = ((run: Parameters<PGlite["transaction"]>[0]) =>
    transaction((tx) => {
      tx.query = observedQuery(tx.query) as typeof tx.query;
      return run(tx);
    })) as PGlite["transaction"];
}

/**
 * PostgreSQL's own CSV of a query (`COPY (query) TO … WITH (FORMAT csv)`: RFC 4180 quoting, NULL as an empty
 * field, LF line ends), in blocks of about COPY_BLOCK_BYTES as the caller iterates; ending the iteration early
 * (break, `return()`) stops the query. Select text columns under the names the file's header should carry: COPY
 * writes values in their text form (booleans as t/f), and its header is the result's column names.
 *
 * `secretSettings` are custom settings (`member_account.name`) the query reads with `current_setting(name)`: a
 * secret it needs goes there, never into the query. The query's own parameters become literals in COPY's text,
 * which PostgreSQL writes to its log with any error (a download the client leaves is one); a setting is set by a
 * bind parameter beforehand, on the same connection, and reset after.
 */
export type CsvCopy = (
  query: SQL,
  options: { header: boolean; secretSettings?: Record<string, string> },
) => AsyncIterable<Uint8Array>;

/** A custom setting's name as PostgreSQL takes it (a prefix, a dot, a name); written into statements as is. */
const CUSTOM_SETTING_NAME = /^member_account\.[a-z_]+$/;

function settingNamesOf(settings: Record<string, string>): string[] {
  const names = Object.keys(settings);
  for (const name of names) {
    if (!CUSTOM_SETTING_NAME.test(name)) throw new TypeError(`not a custom setting name: ${name}`);
  }
  return names;
}

/** The set_config calls for `settings` as select columns, their values bind parameters from `firstParameter` on. */
const settingColumns = (names: string[], firstParameter: number) =>
  names.map((name, index) => `set_config('${name}', $${firstParameter + index}::text, false)`);

/** Renders Drizzle SQL to text and parameters as the app's Drizzle instances do (snake_case names). */
const dialect = new PgDialect({ casing: "snake_case" });
/**
 * A download may outlast the pool's STATEMENT_TIMEOUT_MS by far (200,000 rows to a slow link): its connection gets
 * this instead, for the time it holds the COPY.
 */
const COPY_STATEMENT_TIMEOUT_MS = 60 * 60 * 1000;
/**
 * PostgreSQL sends COPY one row per message: rows are gathered into blocks of this size, so that what follows
 * (formula escaping, the socket's writes) works per block, not per row.
 */
const COPY_BLOCK_BYTES = 64 * 1024;

/** The CSV COPY of a database opened by openDatabase (PGlite or postgres.js underneath). */
export function csvCopyFor(db: Database): CsvCopy {
  const client = (db as unknown as { $client: PGlite | postgres.Sql }).$client;
  return client instanceof PGlite ? pgliteCsvCopy(client) : postgresCsvCopy(client);
}

const copyStatement = (queryText: string, header: boolean, target: string) =>
  `copy (${queryText}) to ${target} with (format csv${header ? ", header" : ""})`;

/**
 * COPY takes no bind parameters, so the query's are written into its text as literals, each quoted by PostgreSQL
 * itself (`format('%L', …)`, the server's quote_literal), never by string pasting in Node. `literalsOf` runs the
 * quoting columns (literalColumns) with the values as their own bind parameters and returns the literals.
 */
async function withLiteralParameters(
  query: SQL,
  literalsOf: (values: (string | null)[]) => Promise<string[]>,
): Promise<string> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const literals = await literalsOf(params.map(parameterText));
  // One pass over Drizzle's text: a literal put in is never read again as a placeholder.
  return text.replace(/\$(\d+)/g, (_, position: string) => literals[Number(position) - 1]!);
}

const literalColumns = (count: number) =>
  Array.from({ length: count }, (_, index) => `format('%L', $${index + 1}::text)`);

/**
 * A bind parameter as the text PostgreSQL would read it. An untyped literal takes its type from where it stands,
 * as a parameter does (a limit is a bigint, a time a timestamptz).
 */
function parameterText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
    return String(value);
  throw new TypeError(`a COPY query parameter of type ${typeof value}`);
}

/**
 * COPY … TO STDOUT on a connection reserved for it, which can take a longer statement timeout. The connection is
 * the pool's until the iteration ends, so callers cap how many run at once (app/domain/staff/member-export.server.ts).
 * postgres.js's COPY stream pauses the socket when it is not read (backpressure reaches PostgreSQL); a COPY ended
 * early is cancelled (a CancelRequest) and its stream drained to the error that follows, so the connection goes
 * back to the pool clean.
 */
function postgresCsvCopy(client: postgres.Sql): CsvCopy {
  return async function* (query, { header, secretSettings = {} }) {
    const settingNames = settingNamesOf(secretSettings);
    const connection = await client.reserve();
    let copy: postgres.PendingQuery<postgres.Row[]> | undefined;
    let stream: Readable | undefined;
    try {
      // The longer timeout, the settings and the literals in one round trip.
      const queryText = await withLiteralParameters(query, async (values) => {
        const columns = [
          `set_config('statement_timeout', '${COPY_STATEMENT_TIMEOUT_MS}', false)`,
          ...settingColumns(settingNames, values.length + 1),
        ];
        const [row] = await connection
          .unsafe(`select ${[...literalColumns(values.length), ...columns].join(", ")}`, [
            ...values,
            ...Object.values(secretSettings),
          ])
          .values();
        return (row as string[]).slice(0, values.length);
      });
      copy = connection.unsafe(copyStatement(queryText, header, "stdout"));
      stream = await copy.readable();
      // Not destroyed when the caller stops early: destroying it would leave postgres.js mid-COPY for good.
      yield* inBlocks(stream.iterator({ destroyOnReturn: false }));
    } finally {
      if (stream && !stream.readableEnded && !stream.destroyed) {
        const ended = finished(stream).catch(() => {});
        await copy!.cancel();
        stream.resume();
        await ended;
      }
      if (stream) resumeConnectionAfterCopy(stream);
      // The download is over: the connection goes back to the pool once reset, without holding the body's end.
      void connection
        .unsafe(
          [`set statement_timeout = ${STATEMENT_TIMEOUT_MS}`, ...settingNames.map((name) => `reset ${name}`)].join(
            "; ",
          ),
        )
        .catch(() => {})
        .finally(() => connection.release());
    }
  };
}

/**
 * postgres.js pauses its socket when the COPY stream is full and resumes it only when the stream is read; when the
 * end of the COPY is already in the paused data, the stream ends with the socket still paused, and the connection
 * never reads again (porsager/postgres#499, fix proposed in #1016, unreleased in 3.4). The stream's read hook is
 * what resumes the socket: calling it once the COPY is over keeps the connection usable.
 */
export function resumeConnectionAfterCopy(stream: Readable) {
  stream._read(0);
}

/** A stream's chunks (a row each, or more when reading lags) gathered into blocks of about COPY_BLOCK_BYTES. */
async function* inBlocks(chunks: AsyncIterable<Uint8Array>) {
  let parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
    if (size >= COPY_BLOCK_BYTES) {
      yield Buffer.concat(parts, size);
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}

/**
 * PGlite (one connection for the whole app) has COPY only into a Blob (`TO '/dev/blob'`): the whole file is made
 * at once, then handed out in blocks. Embedded PGlite serves development and small installations; PostgreSQL,
 * which streams, is the production setup.
 */
function pgliteCsvCopy(client: PGlite): CsvCopy {
  return async function* (query, { header, secretSettings = {} }) {
    const settingNames = settingNamesOf(secretSettings);
    const queryText = await withLiteralParameters(query, async (values) => {
      const columns = [...literalColumns(values.length), ...settingColumns(settingNames, values.length + 1)];
      if (columns.length === 0) return [];
      const statement = `select ${columns.join(", ")}`;
      const parameters = [...values, ...Object.values(secretSettings)];
      const { rows } = await client.query<string[]>(statement, parameters, { rowMode: "array" });
      return rows[0]!.slice(0, values.length);
    });
    // PGlite is the whole app's one connection: the settings are reset as soon as the file is made.
    let blob: Blob | undefined;
    try {
      ({ blob } = await client.query(copyStatement(queryText, header, "'/dev/blob'")));
    } finally {
      if (settingNames.length > 0) await client.exec(settingNames.map((name) => `reset ${name};`).join(" "));
    }
    // PGlite gives no Blob at all when COPY wrote nothing (no rows, no header): an empty file.
    if (!blob) return;
    const file = new Uint8Array(await blob.arrayBuffer());
    for (let start = 0; start < file.length; start += COPY_BLOCK_BYTES) {
      yield file.subarray(start, start + COPY_BLOCK_BYTES);
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
