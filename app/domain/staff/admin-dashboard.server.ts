import { and, count, eq, gte, lte, sql } from "drizzle-orm";
import { LOCALES } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import type { Database } from "~db/client.server";
import { memberDirectory, withdrawalReasons } from "~db/schema";
import { SERVICE_NAMES } from "./member-search.server";
import { WITHDRAWAL_REASONS } from "../forms/form-choices";

/**
 * The figures above the staff's member list. Each is an aggregate over the whole directory (about 0.8 s over a
 * million rows on two cores), which would dominate every view of `/admin/` if computed per request; staff look at
 * trends, so figures a minute old are as good. They are kept per database in the process for this long by default
 * (ADMIN_DASHBOARD_MAX_AGE_SECONDS), and older ones are still shown while new ones are computed behind them.
 */
export const DASHBOARD_CACHE_TTL_MS = 60_000;
/** Months are Japanese calendar months; Japan has no daylight saving time, so the offset is fixed. */
const TOKYO_OFFSET_MS = 9 * 60 * 60 * 1000;
const MONTHS_SHOWN = 12;

export interface DashboardFigures {
  computedAt: Date;
  /** The last 12 months (Japan time), oldest first, the current month last; months without sign-ups are 0. */
  signUpsByMonth: { month: string; signUps: number }[];
  /** The same months: cancellations by reason (every reason present, 0 when none) and their total. */
  cancellationsByMonth: { month: string; byReason: Record<string, number>; total: number }[];
  /** Active members by preferred language: ja and en always, then any other value (null: not set). */
  membersByLanguage: { locale: string | null; members: number }[];
  /** Active members by the service they signed up from: every service always ("id" includes no referrer). */
  membersByReferrer: { service: string; members: number }[];
}

const latest = new WeakMap<Database, { computedAt: number; figures: DashboardFigures }>();
const computing = new WeakMap<Database, Promise<DashboardFigures>>();

/**
 * The dashboard's figures as of `now`. Figures younger than `maxAgeMs` are answered as they are; older ones too,
 * while a recomputation runs behind them (stale-while-revalidate: only the very first view waits for the
 * aggregates). `maxAgeMs: 0` computes them now (tests, and an instance configured to). Concurrent computations are
 * shared.
 */
export function dashboardFigures(
  db: Database,
  now = new Date(),
  options: { maxAgeMs?: number } = {},
): Promise<DashboardFigures> {
  const maxAgeMs = options.maxAgeMs ?? DASHBOARD_CACHE_TTL_MS;
  const kept = latest.get(db);
  if (maxAgeMs === 0 || !kept) return recompute(db, now);
  if (now.getTime() - kept.computedAt >= maxAgeMs) {
    recompute(db, now).catch((error: unknown) =>
      logger.warn({ err: error }, "the admin dashboard's figures could not be recomputed; the next view tries again"),
    );
  }
  return Promise.resolve(kept.figures);
}

function recompute(db: Database, now: Date): Promise<DashboardFigures> {
  const running = computing.get(db);
  if (running) return running;
  const figures = computeDashboardFigures(db, now)
    .then((computed) => {
      latest.set(db, { computedAt: now.getTime(), figures: computed });
      return computed;
    })
    .finally(() => computing.delete(db));
  computing.set(db, figures);
  return figures;
}

/** The last 12 Japanese months up to `now` as "YYYY-MM", oldest first, and the instant the first one starts. */
export function lastTwelveMonths(now: Date): { months: string[]; start: Date } {
  const tokyoNow = new Date(now.getTime() + TOKYO_OFFSET_MS);
  const year = tokyoNow.getUTCFullYear();
  const month = tokyoNow.getUTCMonth();
  const months = Array.from({ length: MONTHS_SHOWN }, (_, index) =>
    new Date(Date.UTC(year, month - (MONTHS_SHOWN - 1) + index, 1)).toISOString().slice(0, 7),
  );
  return { months, start: new Date(Date.UTC(year, month - (MONTHS_SHOWN - 1), 1) - TOKYO_OFFSET_MS) };
}

/** The Japanese month of a timestamp column, as "YYYY-MM". */
const tokyoMonthOf = (column: typeof memberDirectory.signedUpAt | typeof withdrawalReasons.createdAt) =>
  sql<string>`to_char((${column} at time zone 'UTC') + interval '9 hours', 'YYYY-MM')`;

async function computeDashboardFigures(db: Database, now: Date): Promise<DashboardFigures> {
  const { months, start } = lastTwelveMonths(now);
  const d = memberDirectory;
  const w = withdrawalReasons;
  const referrer = sql<string>`coalesce(${d.referrerService}, 'id')`;
  const [signUps, cancellations, activeMembers] = await Promise.all([
    db
      .select({ month: tokyoMonthOf(d.signedUpAt), total: count() })
      .from(d)
      .where(and(gte(d.signedUpAt, start), lte(d.signedUpAt, now)))
      .groupBy(sql`1`),
    db
      .select({ month: tokyoMonthOf(w.createdAt), reason: w.reason, total: count() })
      .from(w)
      .where(and(gte(w.createdAt, start), lte(w.createdAt, now)))
      .groupBy(sql`1`, w.reason),
    // Language and service in one pass over the active members: the scan is the cost, not the grouping.
    db
      .select({ locale: d.locale, service: referrer, total: count() })
      .from(d)
      .where(eq(d.memberStatus, "active"))
      .groupBy(d.locale, sql`2`),
  ]);

  const signUpsByMonth = months.map((month) => ({
    month,
    signUps: signUps.find((row) => row.month === month)?.total ?? 0,
  }));
  const cancellationsByMonth = months.map((month) => {
    const byReason: Record<string, number> = Object.fromEntries(WITHDRAWAL_REASONS.map((reason) => [reason, 0]));
    for (const row of cancellations) if (row.month === month) byReason[row.reason] = row.total;
    return { month, byReason, total: Object.values(byReason).reduce((sum, value) => sum + value, 0) };
  });
  return {
    computedAt: now,
    signUpsByMonth,
    cancellationsByMonth,
    membersByLanguage: totalsByKey(LOCALES, activeMembers, (row) => row.locale).map(({ key, total }) => ({
      locale: key,
      members: total,
    })),
    membersByReferrer: totalsByKey(SERVICE_NAMES, activeMembers, (row) => row.service).map(({ key, total }) => ({
      service: key ?? "id",
      members: total,
    })),
  };
}

/** Totals summed by one key: the known keys in their own order (0 when absent), then any other, largest first. */
function totalsByKey<Row extends { total: number }>(
  known: readonly string[],
  rows: Row[],
  keyOf: (row: Row) => string | null,
): { key: string | null; total: number }[] {
  const totals = new Map<string | null, number>(known.map((key) => [key, 0]));
  for (const row of rows) totals.set(keyOf(row), (totals.get(keyOf(row)) ?? 0) + row.total);
  const others = [...totals].filter(([key]) => key === null || !known.includes(key)).sort((a, b) => b[1] - a[1]);
  return [...known.map((key) => [key, totals.get(key) ?? 0] as const), ...others].map(([key, total]) => ({
    key,
    total,
  }));
}
