/**
 * The staff's member export at scale: seeds 1,000,000 members into PostgreSQL (generate_series, not the UI), then
 * downloads `GET /api/admin/users.csv` through our production server (preview mode: the compiled build, the
 * embedded Cognito stand-in for the admin's token) and reports, in one run:
 *  - rows/s of the download beside `COPY (the same query) TO STDOUT WITH (FORMAT csv)` of the same rows straight
 *    from PostgreSQL (target: ours ≥ 0.5 of COPY's);
 *  - the server's peak RSS while exporting 10,000, 100,000 and 1,000,000 rows (target: growth under 50 MB);
 *  - a slow-reading client (about 1 MB/s for SLOW_CLIENT_SECONDS): the server's RSS stays flat.
 *
 *   npm run bench:export   # DATABASE_URL (default postgres://postgres@127.0.0.1:55490/bench_export; created if
 *                          # missing, its member tables replaced), EXPORT_BENCH_ROWS (default 1,000,000)
 *
 * Needs a build (`npm run build`). Start a throwaway PostgreSQL first (STACK.md trap 10), e.g. on port 55490.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import postgres from "postgres";
import { openDatabase, resumeConnectionAfterCopy } from "~db/client.server";
import { connectToStandIn } from "../support/bearer-tokens";
import { createApiStaff, staffTokensFor } from "../support/staff-api-access";
import {
  ensureAppBuild,
  ensureBenchDatabase,
  findFreePort,
  makeTempDir,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
} from "./bench-support";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:55490/bench_export";
const ROWS = Number(process.env.EXPORT_BENCH_ROWS ?? 1_000_000);
const SIZES = [10_000, 100_000, ROWS].filter((size, index, all) => size <= ROWS && all.indexOf(size) === index);
/** The API's largest page (MAX_EXPORT_LIMIT): bigger sizes use `all=1` over the whole table. */
const MAX_PAGE_ROWS = 200_000;
const SLOW_CLIENT_SECONDS = 10;
const SLOW_CLIENT_BYTES_PER_SECOND = 1024 * 1024;
const RSS_SAMPLE_MS = 20;
const WARM_UP_DOWNLOADS = 5;
const TARGET_RATIO = 0.5;
const TARGET_GROWTH_MB = 50;

/** The export's query (app/domain/staff/member-export.server.ts, no filters), for COPY. */
const japanTime = (column: string) => `to_char(${column} at time zone 'Asia/Tokyo', 'YYYY-MM-DD HH24:MI:SS')`;
const EXPORT_QUERY = `select sub, email, email_verified::text, member_status, enabled::text, family_name, given_name,
  locale, referrer_service, ${japanTime("signed_up_at")}, ${japanTime("legacy_migrated_at")},
  ${japanTime("cancelled_at")} from member_directory order by signed_up_at, sub`;

/** Directory rows only (the export reads nothing else): Japanese names, a formula cell every 100th member. */
async function seedMembers(sql: postgres.Sql, count: number) {
  const [{ seeded }] = (await sql`select count(*)::int as seeded from member_directory`) as unknown as [
    { seeded: number },
  ];
  if (seeded === count) return console.log(`${count.toLocaleString("en")} members already seeded.`);
  console.log(`Seeding ${count.toLocaleString("en")} members…`);
  await sql.unsafe("truncate member_directory, member_profiles, legacy_credentials, withdrawal_reasons");
  await sql.unsafe(`
    insert into member_directory (sub, username, email, email_verified, cognito_status, enabled, signed_up_at,
      cognito_updated_at, locale, family_name, given_name, synced_at, seen_in_cognito_at)
    select md5('bench-export-' || i)::uuid, 'bench' || i, 'member.' || i || '@example.jp', true, 'CONFIRMED',
      i % 100 <> 4, timestamptz '2021-11-22 00:00:00+09' + i * interval '1 minute', now(),
      case when i % 5 = 0 then 'en' else 'ja' end,
      case when i % 100 = 0 then '=cmd|'' /C calc''!A0' else (array['山田','佐藤','鈴木','高橋','田中'])[1 + i % 5] end,
      (array['太郎','花子','健','美咲','〜さくら'])[1 + i % 5], now(), now()
    from generate_series(1, ${count}) as i`);
  await sql.unsafe("analyze member_directory");
}

/** Samples a process's resident memory until stopped: the peak, and every sample for the slow client's spread. */
function sampleRss(pid: number) {
  const read = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  const samples: number[] = [read()];
  const timer = setInterval(() => samples.push(read()), RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      samples.push(read());
      return { peak: Math.max(...samples), min: Math.min(...samples), last: samples.at(-1)! };
    },
  };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function timeDownload(origin: string, path: string, token: string) {
  const started = performance.now();
  const response = await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of response.body!) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) newlines++;
  }
  return { seconds: (performance.now() - started) / 1000, bytes, lines: newlines };
}

async function timeCopy(sql: postgres.Sql, rows: number) {
  const started = performance.now();
  const stream = await sql
    .unsafe(`copy (${EXPORT_QUERY} limit ${rows}) to stdout with (format csv, header)`)
    .readable();
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  // Or the connection may stay paused for good (db/client.server.ts, the app's COPY does the same).
  resumeConnectionAfterCopy(stream);
  return { seconds: (performance.now() - started) / 1000, bytes };
}

/** Reads the download at about SLOW_CLIENT_BYTES_PER_SECOND for SLOW_CLIENT_SECONDS, then hangs up. */
async function slowDownload(origin: string, path: string, token: string) {
  const url = new URL(origin);
  const socket = net.connect(Number(url.port), url.hostname);
  let received = 0;
  const started = performance.now();
  socket.on("data", (chunk: Buffer) => {
    received += chunk.length;
    // Pause until the average rate is back under the target.
    const dueMs = (received / SLOW_CLIENT_BYTES_PER_SECOND) * 1000 - (performance.now() - started);
    if (dueMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), dueMs);
    }
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, SLOW_CLIENT_SECONDS * 1000));
  socket.destroy();
  return received;
}

async function runBenchmark() {
  await ensureAppBuild();
  await ensureBenchDatabase(DATABASE_URL, { fresh: false });
  const handle = openDatabase({ databaseUrl: DATABASE_URL, dataDir: makeTempDir("unused") });
  await handle.migrate();
  await handle.close();
  const sql = postgres(DATABASE_URL, { max: 2, onnotice: () => {} });
  try {
    await seedMembers(sql, ROWS);
    const standInPort = await findFreePort();
    const server = await startPreviewServer({
      DATABASE_URL,
      STANDIN_COGNITO_PORT: String(standInPort),
      LOG_LEVEL: "warn",
    });
    const admin = await createApiStaff({ url: server.origin, origin: server.origin, standInPort }, "bench-export");
    const sdk = await connectToStandIn(standInPort);
    const token = (await staffTokensFor(sdk, admin)).accessToken;
    sdk.destroy();
    const pid = server.child.pid!;

    // Warm-up: code paths, pooled connections, the JIT; memory that grows once, not with the rows. The first few
    // downloads are markedly slower than later ones, enough to hide a 10,000-row file's own time.
    for (let round = 0; round < WARM_UP_DOWNLOADS; round++) {
      await timeDownload(server.origin, "/api/admin/users.csv?limit=10000", token);
    }
    const idle = sampleRss(pid).stop().last;

    const rows: string[][] = [];
    const peaks: number[] = [];
    let fileBytes = 0;
    for (const size of SIZES) {
      const path =
        size === ROWS && size > MAX_PAGE_ROWS ? "/api/admin/users.csv?all=1" : `/api/admin/users.csv?limit=${size}`;
      const rss = sampleRss(pid);
      const ours = await timeDownload(server.origin, path, token);
      const { peak } = rss.stop();
      peaks.push(peak);
      fileBytes = ours.bytes;
      if (ours.lines !== size + 1) throw new Error(`${path} gave ${ours.lines} lines, expected ${size + 1}`);
      const copy = await timeCopy(sql, size);
      const ratio = size / ours.seconds / (size / copy.seconds);
      rows.push([
        size.toLocaleString("en"),
        Math.round(size / ours.seconds).toLocaleString("en"),
        Math.round(size / copy.seconds).toLocaleString("en"),
        `${ratio.toFixed(2)} ${ratio >= TARGET_RATIO ? "✓" : "✗"}`,
        mb(ours.bytes),
        mb(peak),
        `+${mb(peak - idle)}`,
      ]);
    }
    console.log(
      `\nGET /api/admin/users.csv vs COPY (same query) TO STDOUT, PostgreSQL, server RSS idle ${mb(idle)} MB`,
    );
    printTable(
      ["rows", "ours rows/s", "COPY rows/s", `ratio (≥ ${TARGET_RATIO})`, "file MB", "peak RSS MB", "vs idle MB"],
      rows,
    );
    const growth = peaks.at(-1)! - peaks[0]!;
    console.log(
      `Peak RSS growth from ${SIZES[0]!.toLocaleString("en")} to ${SIZES.at(-1)!.toLocaleString("en")} rows: ` +
        `${mb(growth)} MB (target < ${TARGET_GROWTH_MB} MB) ${growth < TARGET_GROWTH_MB * 1024 * 1024 ? "✓" : "✗"}`,
    );

    const rss = sampleRss(pid);
    const received = await slowDownload(server.origin, "/api/admin/users.csv?all=1", token);
    const slow = rss.stop();
    console.log(
      `\nSlow client (${mb(SLOW_CLIENT_BYTES_PER_SECOND)} MB/s for ${SLOW_CLIENT_SECONDS} s, ${mb(received)} MB read ` +
        `of a ${mb(fileBytes)} MB file): server RSS ` +
        `${mb(slow.min)}–${mb(slow.peak)} MB, spread ${mb(slow.peak - slow.min)} MB`,
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

await runBenchmarkMain(runBenchmark);
