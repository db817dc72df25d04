import { readFileSync } from "node:fs";
import net from "node:net";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ErrorEnvelopeSchema } from "~/api/contract";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { createApiStaff, staffTokenSource, staffTokensFor } from "../../support/staff-api-access";
import { startTestPostgres } from "../../support/postgres-server";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * The staff's CSV downloads through the real server (production build, preview mode) on PostgreSQL, where a
 * download holds a pooled connection and a running COPY: bearer tokens from the stand-in through the AWS SDK,
 * files parsed with csv-parse. The exports' content in detail, on both databases, is staff/member-export.db.test.ts.
 */

/** Enough rows that the file (about 36 MB) dwarfs the socket buffers between a paused client and the server. */
const BIG_ROW_COUNT = 200_000;

let postgresServer: { url: string; stop(): Promise<void> };
let databaseUrl: string;
let sql: postgres.Sql;
let server: ServerProcess;
let sdk: StandInSdk;
let adminToken: () => Promise<string>;

beforeAll(async () => {
  const started = await startTestPostgres();
  if (!started) throw new Error("These tests need PostgreSQL: set TEST_DATABASE_URL or install postgresql");
  postgresServer = started;
  const admin = postgres(started.url, { max: 1, onnotice: () => {} });
  await admin.unsafe("drop database if exists admin_downloads with (force)");
  await admin.unsafe("create database admin_downloads");
  await admin.end();
  const url = new URL(started.url);
  url.pathname = "/admin_downloads";
  databaseUrl = url.toString();
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "info",
    DATABASE_URL: databaseUrl,
  });
  sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  // Straight into the directory (the mirror the export reads): three members to look at, then many plain ones.
  await sql.unsafe(`
    insert into member_directory (sub, username, email, email_verified, cognito_status, enabled, signed_up_at,
      cognito_updated_at, locale, family_name, given_name)
    values
      ('00000000-0000-4000-8000-000000000001', 'u1', 'first@example.jp', true, 'CONFIRMED', true,
       '2020-01-01 00:00:00+09', now(), 'ja', '=cmd|'' /C calc''!A0', '〜花子'),
      ('00000000-0000-4000-8000-000000000002', 'u2', 'second@example.jp', true, 'CONFIRMED', true,
       '2020-01-01 00:00:01+09', now(), 'en', '＝cmd', 'Hanako'),
      ('00000000-0000-4000-8000-000000000003', 'u3', 'third@example.jp', true, 'CONFIRMED', true,
       '2020-01-01 00:00:02+09', now(), 'ja', '山田', '太郎')`);
  await sql.unsafe(`
    insert into member_directory (sub, username, email, email_verified, cognito_status, enabled, signed_up_at,
      cognito_updated_at, locale, family_name, given_name)
    select md5('download-' || i)::uuid, 'bulk' || i, 'bulk.member.' || i || '@example.jp', true, 'CONFIRMED', true,
      timestamptz '2021-01-01 00:00:00+09' + i * interval '1 second', now(), 'ja', '山田', '太郎'
    from generate_series(1, ${BIG_ROW_COUNT}) as i`);
  sdk = await connectToStandIn(server.standInPort);
  adminToken = staffTokenSource(sdk, await createApiStaff(server, "downloads"));
}, 300_000);

afterAll(async () => {
  sdk?.destroy();
  await server?.stop();
  await sql?.end();
  await postgresServer?.stop();
});

async function download(path: string, token?: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    headers: { Authorization: `Bearer ${token ?? (await adminToken())}`, "Accept-Language": "en", ...headers },
  });
}

const recordsOf = (text: string) => parse(text, { bom: true }) as string[][];

test("users.csv: a UTF-8 attachment with a BOM, Japanese intact, formula cells escaped, never compressed", async () => {
  const response = await download("/api/admin/users.csv?limit=3", undefined, { "Accept-Encoding": "gzip" });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(response.headers.get("content-encoding")).toBeNull();
  expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-disposition")).toMatch(
    /^attachment; filename="users-\d{8}-\d{4}\.csv"; filename\*=UTF-8''users-\d{8}-\d{4}\.csv$/,
  );
  const bytes = Buffer.from(await response.arrayBuffer());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows] = recordsOf(bytes.toString("utf8"));
  expect(header!.slice(0, 2)).toEqual(["sub", "email"]);
  expect(rows.map((row) => [row[1], row[5], row[6]])).toEqual([
    ["first@example.jp", "'=cmd|' /C calc'!A0", "〜花子"],
    ["second@example.jp", "'＝cmd", "Hanako"],
    ["third@example.jp", "山田", "太郎"],
  ]);
});

test("users.csv: paging is exact, header=0 drops the header, Shift_JIS decodes as CP932", async () => {
  const response = await download("/api/admin/users.csv?page=1&limit=2&header=0&encoding=shift_jis");
  expect(response.headers.get("content-type")).toBe("text/csv; charset=shift_jis");
  const text = iconv.decode(Buffer.from(await response.arrayBuffer()), "cp932");
  const rows = recordsOf(text);
  expect(rows.map((row) => row[1])).toEqual(["third@example.jp", "bulk.member.1@example.jp"]);
  expect(rows[0]![5]).toBe("山田");
});

test("bad parameters answer 422 with field errors; a member's token 403", async () => {
  for (const path of [
    "/api/admin/users.csv?limit=0&page=x&encoding=latin1",
    "/api/admin/downloads/email-addresses",
    "/api/admin/downloads/withdrawal-reasons?locale=fr",
  ]) {
    const response = await download(path);
    expect(response.status, path).toBe(422);
    const envelope = ErrorEnvelopeSchema.parse(await response.json());
    expect(envelope.error.code).toBe("validation_failed");
  }
  const { email } = await createTestMember(server.standInPort, "downloads-member");
  const forbidden = await download(
    "/api/admin/users.csv",
    (await staffTokensFor(sdk, { email, password: TEST_PASSWORD })).accessToken,
  );
  expect(forbidden.status).toBe(403);
  expect(ErrorEnvelopeSchema.parse(await forbidden.json()).error.code).toBe("forbidden");
  const membersToken = await download(
    "/api/admin/users.csv",
    (await bearerTokensFor(sdk, email, TEST_PASSWORD)).accessToken,
  );
  expect(membersToken.status).toBe(403);
  expect(ErrorEnvelopeSchema.parse(await membersToken.json()).error.code).toBe("staff_token_required");
});

test("e-mail addresses and withdrawal reasons download by locale", async () => {
  const english = await download("/api/admin/downloads/email-addresses?locale=en");
  const [header, ...rows] = recordsOf(await english.text());
  expect(header).toEqual(["email", "family_name", "given_name", "unsubscribe_url"]);
  expect(rows.map((row) => row.slice(0, 3))).toEqual([["second@example.jp", "'＝cmd", "Hanako"]]);
  // The member's one-click unsubscribe link, on the app's origin (APP_ORIGIN) and in the list's language, signed by
  // PostgreSQL.
  const unsubscribeUrl = rows[0]![3]!;
  expect(new URL(unsubscribeUrl).origin).toBe(`http://localhost:${new URL(server.url).port}`);
  expect(new URL(unsubscribeUrl).pathname).toMatch(
    /^\/en\/newsletter\/unsubscribe\/00000000-0000-4000-8000-000000000002\.[0-9a-f]{64}\/$/,
  );
  // As a mail provider posts it (RFC 8058): no cookie, no Origin. A tampered copy is refused and changes nothing.
  const oneClick = (url: string) =>
    fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
  // The signature's last digit changed (always to another digit: the secret, and so the signature, is new each run).
  const tampered = unsubscribeUrl.replace(/([0-9a-f])\/$/, (_match, digit: string) => `${digit === "0" ? "1" : "0"}/`);
  expect(tampered).not.toBe(unsubscribeUrl);
  expect((await oneClick(tampered)).status).toBe(400);
  expect(recordsOf(await (await download("/api/admin/downloads/email-addresses?locale=en")).text())).toHaveLength(2);
  expect((await oneClick(unsubscribeUrl)).status).toBe(200);
  expect(recordsOf(await (await download("/api/admin/downloads/email-addresses?locale=en")).text())).toEqual([header]);
  const reasons = await download("/api/admin/downloads/withdrawal-reasons");
  expect(reasons.status).toBe(200);
  expect(recordsOf(await reasons.text())).toEqual([["cancelled_at", "locale", "reason", "reason_label", "detail"]]);
});

/** The server's resident memory, from /proc (Linux). */
function serverRssBytes(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A raw client that sends the request and reads nothing until told to: the socket's buffers fill up. */
async function pausedDownload(path: string) {
  const token = await adminToken();
  const url = new URL(server.url);
  const socket = net.connect(Number(url.port), url.hostname);
  let received = 0;
  let head = "";
  socket.on("data", (chunk: Buffer) => {
    if (received < 4096) head += chunk.toString("latin1");
    received += chunk.length;
  });
  socket.on("error", () => {});
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  );
  return {
    socket,
    received: () => received,
    requestId: () => /x-request-id: (\S+)/i.exec(head)?.[1] ?? "",
    async readFor(bytes: number) {
      socket.resume();
      while (received < bytes) await new Promise((resolve) => setTimeout(resolve, 10));
      socket.pause();
    },
  };
}

/**
 * The export's query on the server's connections: its COPY shows here as a running statement (once: parallel
 * workers of the same query are not counted).
 */
async function openExportQueries(): Promise<number> {
  const rows = await sql`
    select count(*)::int as open from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
      and query like '%from "member_directory"%'
      and query like '%order by%' and state <> 'idle'`;
  return rows[0]!.open as number;
}

async function waitFor(check: () => Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The server's "download ended" log line of a request: how many rows had been read, and how it ended. */
async function downloadEnded(requestId: string): Promise<{ rowsRead: number; outcome: string }> {
  let line: { rowsRead: number; outcome: string } | undefined;
  await waitFor(async () => {
    line = server
      .stdout()
      .split("\n")
      .filter((text) => text.includes('"download ended"') && text.includes(requestId))
      .map((text) => JSON.parse(text) as { rowsRead: number; outcome: string })[0];
    return line !== undefined;
  }, "the download's log line");
  return line!;
}

test("a client that stops reading holds the query back: the server reads about what the socket holds", async () => {
  const client = await pausedDownload("/api/admin/users.csv?all=1");
  // Read a little so the download is under way, then stop: the socket buffers fill and the server must wait.
  await client.readFor(64 * 1024);
  await waitFor(async () => (await openExportQueries()) === 1, "the export's query");
  // Give an unthrottled writer ample opportunity to produce the whole file (its memory would keep growing).
  let previous = -1;
  let steadySamples = 0;
  await waitFor(async () => {
    const rss = serverRssBytes();
    steadySamples = Math.abs(rss - previous) < 256 * 1024 ? steadySamples + 1 : 0;
    previous = rss;
    return steadySamples >= 10;
  }, "the server's memory to settle");
  // The query waits, still running, for the client.
  expect(await openExportQueries()).toBe(1);
  const requestId = client.requestId();
  client.socket.destroy();
  await waitFor(async () => (await openExportQueries()) === 0, "the query to end");
  const ended = await downloadEnded(requestId);
  expect(ended.outcome).toBe("cancelled");
  // What was read is what the client took plus what the kernel's socket buffers hold (a few MB on loopback), far
  // from the file: an unthrottled writer would have read every row.
  expect(ended.rowsRead).toBeLessThan(BIG_ROW_COUNT / 2);
});

test("a client that disconnects mid-download stops the query, and the next download works", async () => {
  const client = await pausedDownload("/api/admin/users.csv?all=1&encoding=shift_jis");
  await client.readFor(16 * 1024);
  await waitFor(async () => (await openExportQueries()) === 1, "the export's query");
  client.socket.destroy();
  await waitFor(async () => (await openExportQueries()) === 0, "the query to end");
  const next = await download("/api/admin/users.csv?limit=1&header=0");
  expect(recordsOf(await next.text())[0]![1]).toBe("first@example.jp");
});
