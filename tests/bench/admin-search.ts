/**
 * The staff list at scale: seeds 1,000,000 members into PostgreSQL (generate_series, not the UI), then reports
 * p50/p99 of the admin area's reads through the app's own domain functions, each with the indexes its query plan
 * uses, and the first page's query run alone (EXPLAIN ANALYZE, as in psql) for the "within 2x" comparison.
 *
 *   npm run bench:admin    # DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_admin),
 *                          # BENCH_MEMBERS=1000000, BENCH_RUNS=100
 *
 * The database is created when missing and migrated; the seed is kept between runs and redone only when the
 * member count differs. A report, never a pass/fail test: the target is under 50 ms p99 each.
 */
import { performance } from "node:perf_hooks";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { dashboardFigures } from "~/domain/staff/admin-dashboard.server";
import { findMemberDetail } from "~/domain/staff/member-detail.server";
import {
  type MemberSearchQuery,
  countMembers,
  parseMemberSearch,
  searchMembers,
} from "~/domain/staff/member-search.server";
import { openDatabase } from "~db/client.server";
import * as schema from "~db/schema";
import { ensureBenchDatabase, printTable, runBenchmarkMain } from "./bench-support";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/bench_admin";
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const WARMUP_RUNS = 5;
const TARGET_P99_MS = 50;
/** Page 1,000 of the default sort at the default page size: reached by walking 999 `nextCursor`s. */
const DEEP_PAGE = 1_000;

type Sql = postgres.Sql;

/**
 * A uniform number in [0, modulus) for member `i`, independent for each `salt`: the seed is deterministic, so
 * a rerun measures the same data.
 */
const spread = (salt: number, modulus: number) => `((hashint4(i + ${salt})::bigint + 2147483648) % ${modulus})`;

const FAMILY_NAMES = [
  ["山田", "yamada"],
  ["佐藤", "sato"],
  ["鈴木", "suzuki"],
  ["高橋", "takahashi"],
  ["田中", "tanaka"],
  ["伊藤", "ito"],
  ["渡辺", "watanabe"],
  ["中村", "nakamura"],
  ["小林", "kobayashi"],
  ["加藤", "kato"],
  ["吉田", "yoshida"],
  ["山本", "yamamoto"],
  ["斎藤", "saito"],
  ["松本", "matsumoto"],
  ["井上", "inoue"],
  ["木村", "kimura"],
  ["林", "hayashi"],
  ["清水", "shimizu"],
  ["山崎", "yamazaki"],
  ["森", "mori"],
];
const GIVEN_NAMES = [
  ["太郎", "taro"],
  ["花子", "hanako"],
  ["健", "ken"],
  ["美咲", "misaki"],
  ["翔太", "shota"],
  ["陽菜", "hina"],
  ["大輔", "daisuke"],
  ["さくら", "sakura"],
  ["拓也", "takuya"],
  ["結衣", "yui"],
  ["蓮", "ren"],
  ["葵", "aoi"],
  ["悠真", "yuma"],
  ["凛", "rin"],
  ["湊", "minato"],
];
const DOMAINS = ["example.jp", "example.com", "mail.example.ne.jp", "example.co.jp", "example.org"];
const REASONS = ["noLongerNeeded", "price", "content", "usability", "otherAccount", "other"];

const textArray = (values: string[]) => `(array[${values.map((value) => `'${value}'`).join(",")}])`;

/**
 * One member per `i`: what every seeded table derives its row from. 70 % of names in Japanese script, the rest
 * in Latin letters; about 93 % active (4 % cancelled, 1 % disabled, 2 % unconfirmed); locales 80 % ja, 15 % en,
 * 5 % unset; sign-ups spread evenly over five years; 5 % imported legacy accounts, 3 % migrated.
 */
function memberSeries(count: number) {
  return `
    select i,
      md5('bench-member-' || i)::uuid as sub,
      ${textArray(FAMILY_NAMES.map(([kanji]) => kanji!))}[1 + ${spread(1, FAMILY_NAMES.length)}] as family_ja,
      ${textArray(FAMILY_NAMES.map(([, latin]) => latin!))}[1 + ${spread(1, FAMILY_NAMES.length)}] as family_latin,
      ${textArray(GIVEN_NAMES.map(([kanji]) => kanji!))}[1 + ${spread(2, GIVEN_NAMES.length)}] as given_ja,
      ${textArray(GIVEN_NAMES.map(([, latin]) => latin!))}[1 + ${spread(2, GIVEN_NAMES.length)}] as given_latin,
      ${spread(3, 10)} < 7 as japanese_script,
      ${textArray(DOMAINS)}[1 + ${spread(4, DOMAINS.length)}] as domain,
      case when ${spread(5, 20)} < 16 then 'ja' when ${spread(5, 20)} < 19 then 'en' end as locale,
      case ${spread(6, 20)} when 0 then null when 1 then null when 2 then null when 3 then null
        when 10 then 'data' when 11 then 'data' when 12 then 'data' when 13 then 'compe' when 14 then 'compe'
        when 15 then 'online' when 16 then 'online' when 17 then 'online' when 18 then 'shop' when 19 then 'shop'
        else 'id' end as referrer,
      ${spread(7, 100)} as fate,
      timestamptz '2021-11-22 00:00:00+09'
        + ((i - 1)::numeric * 157680000000000 / ${count} + ${spread(8, 1000000)})::bigint * interval '1 microsecond'
        as signed_up_at,
      ${spread(9, 700)} as days_to_cancel,
      ${textArray(REASONS)}[1 + ${spread(10, REASONS.length)}] as reason
    from generate_series(1, ${count}) as i`;
}

/** fate (0–99): 0–3 cancelled, 4 disabled, 5–6 unconfirmed, 10–14 legacy (10–12 migrated), else plain active. */
async function seedMembers(sql: Sql, count: number) {
  await sql.begin(async (tx) => {
    await tx.unsafe(`truncate member_directory, member_profiles, legacy_credentials, withdrawal_reasons,
      member_sessions, email_change_tokens`);
    await tx.unsafe(`create temporary table bench_members on commit drop as ${memberSeries(count)}`);
    await tx.unsafe(`
      insert into member_profiles (sub, family_name, given_name, birth_year, preferred_language, referrer_service,
        created_at, updated_at, cancelled_at, cognito_deleted_at)
      select sub,
        case when japanese_script then family_ja else initcap(family_latin) end,
        case when japanese_script then given_ja else initcap(given_latin) end,
        1950 + i % 55, coalesce(locale, 'ja'),
        case when fate between 10 and 14 then 'legacy' else referrer end,
        signed_up_at, signed_up_at,
        case when fate < 4 then least(signed_up_at + days_to_cancel * interval '1 day', timestamptz '2026-11-21') end,
        null
      from bench_members`);
    await tx.unsafe(`
      insert into legacy_credentials (email, password_hash, profile, imported_at, migrated_at, migrated_sub)
      select given_latin || '.' || family_latin || i || '@' || domain, '$2b$10$bench', '{}'::jsonb,
        timestamptz '2021-06-30 00:00:00+09',
        case when fate between 10 and 12 then signed_up_at end,
        case when fate between 10 and 12 then sub end
      from bench_members where fate between 10 and 14`);
    // The BEFORE INSERT trigger copies referrer, cancellation and migration from the two tables above.
    await tx.unsafe(`
      insert into member_directory (sub, username, email, email_verified, cognito_status, enabled, signed_up_at,
        cognito_updated_at, locale, family_name, given_name, synced_at, seen_in_cognito_at)
      select sub, sub::text, given_latin || '.' || family_latin || i || '@' || domain, fate not between 5 and 6,
        case when fate between 5 and 6 then 'UNCONFIRMED' else 'CONFIRMED' end, fate <> 4, signed_up_at,
        signed_up_at, locale,
        case when japanese_script then family_ja else initcap(family_latin) end,
        case when japanese_script then given_ja else initcap(given_latin) end,
        now(), now()
      from bench_members`);
    await tx.unsafe(`
      insert into withdrawal_reasons (sub, reason, detail, locale, created_at)
      select b.sub, reason, case when reason = 'other' then '他のサービスに移ります' end, coalesce(b.locale, 'ja'),
        p.cancelled_at
      from bench_members b join member_profiles p using (sub) where b.fate < 4`);
    // Every tenth member has two browsers: one signed in, one signed out.
    await tx.unsafe(`
      insert into member_sessions (sub, email, device_key, device_name, browser, refresh_token_encrypted,
        created_at, activated_at, last_login_at, revoked_at, refresh_token_revoked_at)
      select sub, 'x@example.jp', 'bench-' || i || '-' || n, case n when 1 then 'iOS 17.4' else 'Windows 10' end,
        case n when 1 then 'Safari 17' else 'Chrome 120' end, 'bench-token-' || i || '-' || n,
        signed_up_at, signed_up_at, signed_up_at + interval '1 day',
        case n when 2 then signed_up_at + interval '2 days' end, case n when 2 then signed_up_at + interval '2 days' end
      from bench_members, generate_series(1, 2) as n where i % 10 = 0`);
    await tx.unsafe(`
      insert into email_change_tokens (token_hash, sub, old_email, new_email, created_at, expires_at, used_at)
      select md5('bench-token-' || i), sub, 'old.' || i || '@' || domain,
        given_latin || '.' || family_latin || i || '@' || domain, signed_up_at + interval '1 day',
        signed_up_at + interval '2 days', signed_up_at + interval '1 day 1 hour'
      from bench_members where i % 50 = 0`);
  });
  for (const table of [
    "member_directory",
    "member_profiles",
    "legacy_credentials",
    "withdrawal_reasons",
    "member_sessions",
    "email_change_tokens",
  ]) {
    await sql.unsafe(`vacuum analyze ${table}`);
  }
}

interface CapturedQuery {
  sql: string;
  params: unknown[];
}

function percentile(sortedMs: number[], fraction: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil(fraction * sortedMs.length) - 1)] ?? Number.NaN;
}

/** Every index a plan (EXPLAIN's JSON) names, in plan order, and whether any node reads the whole table. */
function indexesOf(plan: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(plan)) for (const item of plan) indexesOf(item, found);
  else if (plan && typeof plan === "object") {
    for (const [key, value] of Object.entries(plan)) {
      if (key === "Index Name" && typeof value === "string") found.add(value);
      else if (key === "Node Type" && value === "Seq Scan") found.add("(sequential scan)");
      else indexesOf(value, found);
    }
  }
  return found;
}

/** Milliseconds of each of RUNS runs after WARMUP_RUNS unmeasured ones, sorted. */
async function timeRuns(run: () => Promise<unknown>): Promise<number[]> {
  for (let warmup = 0; warmup < WARMUP_RUNS; warmup++) await run();
  const timings: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    const started = performance.now();
    await run();
    timings.push(performance.now() - started);
  }
  return timings.sort((a, b) => a - b);
}

function figuresOf(sortedMs: number[], oursP50: number): string[] {
  const p50 = percentile(sortedMs, 0.5);
  return [p50.toFixed(2), percentile(sortedMs, 0.99).toFixed(2), `${(oursP50 / p50).toFixed(1)}x`];
}

async function runBenchmark() {
  await ensureBenchDatabase(DATABASE_URL, { fresh: false });
  const handle = openDatabase({ databaseUrl: DATABASE_URL, dataDir: "unused" });
  await handle.migrate();
  await handle.close();

  const sql = postgres(DATABASE_URL, { max: 4, onnotice: () => {} });
  let captured: CapturedQuery[] = [];
  const db = drizzle({
    client: sql,
    schema,
    casing: "snake_case",
    logger: { logQuery: (query, params) => void captured.push({ sql: query, params }) },
  });
  try {
    const [{ members } = { members: 0 }] = await sql<{ members: number }[]>`
      select count(*)::int as members from member_directory`;
    if (members === MEMBERS) {
      console.log(`${MEMBERS.toLocaleString("en")} members already seeded in ${new URL(DATABASE_URL).pathname}.`);
    } else {
      console.log(`Seeding ${MEMBERS.toLocaleString("en")} members (had ${members.toLocaleString("en")})…`);
      const started = performance.now();
      await seedMembers(sql, MEMBERS);
      console.log(`  seeded and analysed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }

    const query = (params: Record<string, string>): MemberSearchQuery => {
      const parsed = parseMemberSearch(params);
      if (!parsed.success) throw new Error(`the bench's own query is invalid: ${JSON.stringify(parsed.fieldErrors)}`);
      return parsed.query;
    };

    console.log(`Walking to page ${DEEP_PAGE.toLocaleString("en")} of the default sort…`);
    let page = await searchMembers(db, query({}));
    let deepCursor: string | null = null;
    for (let number = 2; number <= DEEP_PAGE; number++) {
      deepCursor = page.nextCursor;
      if (!deepCursor) throw new Error(`the list ended on page ${number - 1}`);
      page = await searchMembers(db, query({ after: deepCursor }));
    }
    if (!deepCursor) throw new Error(`page ${DEEP_PAGE} has no cursor`);
    const deepPageCursor: string = deepCursor;
    const [detailSub] = await sql<{ sub: string }[]>`
      select md5('bench-member-' || ${Math.floor(MEMBERS / 20) * 10})::uuid::text as sub`;

    const cases: { label: string; run: () => Promise<unknown> }[] = [
      { label: "list, first page", run: () => searchMembers(db, query({})) },
      {
        label: `list, page ${DEEP_PAGE.toLocaleString("en")}`,
        run: () => searchMembers(db, query({ after: deepPageCursor })),
      },
      { label: 'e-mail prefix "hanako.sato1"', run: () => searchMembers(db, query({ q: "hanako.sato1" })) },
      { label: 'e-mail prefix "yui.mori2@"', run: () => searchMembers(db, query({ q: "yui.mori2@" })) },
      { label: 'name "山田 太郎"', run: () => searchMembers(db, query({ q: "山田 太郎" })) },
      { label: 'name "山田"', run: () => searchMembers(db, query({ q: "山田" })) },
      {
        label: 'name "taro yamada", by e-mail',
        run: () => searchMembers(db, query({ q: "taro yamada", sort: "email-asc" })),
      },
      { label: "list by e-mail, first page", run: () => searchMembers(db, query({ sort: "email-asc" })) },
      { label: "list by name, first page", run: () => searchMembers(db, query({ sort: "name-asc" })) },
      { label: "list: cancelled", run: () => searchMembers(db, query({ status: "cancelled" })) },
      { label: "list: from shop, en", run: () => searchMembers(db, query({ referrer: "shop", locale: "en" })) },
      { label: "list: referrer id (or none)", run: () => searchMembers(db, query({ referrer: "id" })) },
      { label: "list: legacy migrated", run: () => searchMembers(db, query({ legacy: "migrated" })) },
      {
        label: "list: signed up in March 2026",
        run: () => searchMembers(db, query({ signedUpFrom: "2026-03-01", signedUpTo: "2026-03-31" })),
      },
      {
        label: "count: active, en, since 2026-01-01",
        run: () => countMembers(db, query({ status: "active", locale: "en", signedUpFrom: "2026-01-01" })),
      },
      { label: "count: disabled", run: () => countMembers(db, query({ status: "disabled" })) },
      { label: "count: everyone", run: () => countMembers(db, query({})) },
      { label: "member detail", run: () => findMemberDetail(db, detailSub!.sub) },
      { label: "dashboard figures, uncached", run: () => dashboardFigures(db, new Date(), { maxAgeMs: 0 }) },
    ];

    const rows: string[][] = [];
    let firstPageQuery: CapturedQuery | undefined;
    let firstPageP50 = 0;
    for (const { label, run } of cases) {
      captured = [];
      await run();
      const queries = captured;
      captured = [];
      firstPageQuery ??= queries[0];
      const timings = await timeRuns(run);
      const indexes = new Set<string>();
      for (const { sql: text, params } of queries) {
        const [{ "QUERY PLAN": plan }] = (await sql.unsafe(`explain (format json) ${text}`, params as never[])) as [
          { "QUERY PLAN": unknown },
        ];
        indexesOf(plan, indexes);
      }
      if (rows.length === 0) firstPageP50 = percentile(timings, 0.5);
      rows.push([
        label,
        percentile(timings, 0.5).toFixed(2),
        percentile(timings, 0.99).toFixed(2),
        percentile(timings, 0.99) < TARGET_P99_MS ? "yes" : "NO",
        [...indexes].join(", "),
      ]);
    }

    if (!firstPageQuery) throw new Error("the first page made no query");
    const { sql: firstPageSql, params: firstPageParams } = firstPageQuery;
    // The first page's own SQL without the app: sent by the driver alone (what psql's \timing shows), and as the
    // server alone spends on it (EXPLAIN ANALYZE: planning + execution, no round trip).
    const driverTimings = await timeRuns(() => sql.unsafe(firstPageSql, firstPageParams as never[]));
    const serverTimings: number[] = [];
    for (let round = 0; round < RUNS + WARMUP_RUNS; round++) {
      const [{ "QUERY PLAN": plan }] = (await sql.unsafe(
        `explain (analyze, format json) ${firstPageSql}`,
        firstPageParams as never[],
      )) as [{ "QUERY PLAN": [{ "Planning Time": number; "Execution Time": number }] }];
      if (round >= WARMUP_RUNS) serverTimings.push(plan[0]["Planning Time"] + plan[0]["Execution Time"]);
    }
    serverTimings.sort((a, b) => a - b);

    console.log(`\n${MEMBERS.toLocaleString("en")} members, ${RUNS} runs each after ${WARMUP_RUNS} warm-ups:\n`);
    printTable(
      ["query (through the domain functions)", "p50 ms", "p99 ms", `< ${TARGET_P99_MS} ms`, "plan uses"],
      rows,
    );
    console.log(`\nThe first page (${firstPageP50.toFixed(2)} ms p50 through searchMembers) beside its SQL alone:`);
    printTable(
      ["", "p50 ms", "p99 ms", "ours / this (p50)"],
      [
        ["sent by postgres.js alone", ...figuresOf(driverTimings, firstPageP50)],
        ["server only (EXPLAIN ANALYZE)", ...figuresOf(serverTimings, firstPageP50)],
      ],
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

await runBenchmarkMain(runBenchmark);
