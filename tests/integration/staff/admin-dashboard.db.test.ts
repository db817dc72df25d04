import { beforeAll, expect, test, vi } from "vitest";
import {
  DASHBOARD_CACHE_TTL_MS,
  type DashboardFigures,
  dashboardFigures,
  lastTwelveMonths,
} from "~/domain/staff/admin-dashboard.server";
import { withdrawalReasons } from "~db/schema";
import { type DirectoryMemberSeed, insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("admin-dashboard", { ownDatabase: true });
/** 15 November 2026, noon in Japan: the months shown are 2025-12 to 2026-11. */
const NOW = new Date("2026-11-15T03:00:00Z");
const MONTHS = [
  "2025-12",
  "2026-01",
  "2026-02",
  "2026-03",
  "2026-04",
  "2026-05",
  "2026-06",
  "2026-07",
  "2026-08",
  "2026-09",
  "2026-10",
  "2026-11",
];

let serial = 0;
function member(signedUpAt: string, values: Partial<DirectoryMemberSeed> = {}): DirectoryMemberSeed {
  serial += 1;
  return {
    sub: crypto.randomUUID(),
    email: `dashboard-${serial}@example.jp`,
    locale: "ja",
    signedUpMicros: microsOf(new Date(signedUpAt)),
    ...values,
  };
}

beforeAll(async () => {
  const { db } = database();
  await insertDirectoryMembers(db, [
    // Sign-ups by Japanese month, at the edges of months and of the window.
    member("2025-11-30T14:59:59Z"), // 2025-11-30 23:59:59 in Japan: before the window
    member("2025-11-30T15:00:00Z", { locale: "en", referrerService: "data" }), // 2025-12-01 00:00 in Japan
    member("2026-03-10T00:00:00Z", { locale: "en", referrerService: "shop" }),
    member("2026-03-20T00:00:00Z", { locale: null, withProfile: false }), // no referrer: signed up here
    member("2026-05-31T15:00:00Z", { referrerService: "id" }), // 2026-06-01 in Japan
    member("2026-11-01T00:00:00Z", { referrerService: "legacy" }),
    member("2026-11-15T02:00:00Z", { referrerService: "data" }),
    member("2026-11-16T00:00:00Z"), // after now: not counted
    // Not active: counted as sign-ups, never in the language and service figures.
    member("2026-04-01T00:00:00Z", {
      locale: "en",
      referrerService: "data",
      cancelledAt: new Date("2026-10-01T00:00:00Z"),
    }),
    member("2026-04-02T00:00:00Z", { locale: "en", enabled: false }),
    member("2026-04-03T00:00:00Z", { locale: "en", cognitoStatus: "UNCONFIRMED" }),
  ]);
  const reason = (name: string, createdAt: string) => ({
    sub: crypto.randomUUID(),
    reason: name,
    locale: "ja",
    createdAt: new Date(createdAt),
  });
  await db.insert(withdrawalReasons).values([
    reason("price", "2026-10-01T00:00:00Z"),
    reason("price", "2026-10-31T14:59:59Z"), // 2026-10-31 23:59:59 in Japan
    reason("other", "2026-10-31T15:00:00Z"), // 2026-11-01 in Japan
    reason("content", "2026-01-15T00:00:00Z"),
    reason("content", "2025-11-01T00:00:00Z"), // before the window
  ]);
});

test("sign-ups per Japanese month over the last 12 months, empty months included", async () => {
  const figures = await dashboardFigures(database().db, NOW, { maxAgeMs: 0 });
  expect(figures.computedAt).toEqual(NOW);
  const expected: Record<string, number> = { "2025-12": 1, "2026-03": 2, "2026-04": 3, "2026-06": 1, "2026-11": 2 };
  expect(figures.signUpsByMonth).toEqual(MONTHS.map((month) => ({ month, signUps: expected[month] ?? 0 })));
});

test("cancellations per Japanese month by reason, every reason present", async () => {
  const figures = await dashboardFigures(database().db, NOW, { maxAgeMs: 0 });
  expect(figures.cancellationsByMonth.map((row) => row.month)).toEqual(MONTHS);
  const byMonth = Object.fromEntries(figures.cancellationsByMonth.map((row) => [row.month, row]));
  const none = { noLongerNeeded: 0, price: 0, content: 0, usability: 0, otherAccount: 0, other: 0 };
  expect(byMonth["2026-10"]).toEqual({ month: "2026-10", byReason: { ...none, price: 2 }, total: 2 });
  expect(byMonth["2026-11"]).toEqual({ month: "2026-11", byReason: { ...none, other: 1 }, total: 1 });
  expect(byMonth["2026-01"]).toEqual({ month: "2026-01", byReason: { ...none, content: 1 }, total: 1 });
  expect(figures.cancellationsByMonth.reduce((sum, row) => sum + row.total, 0)).toBe(4);
});

test("active members by preferred language and by the service they came from", async () => {
  const figures = await dashboardFigures(database().db, NOW, { maxAgeMs: 0 });
  // Active: the eight members above the inactive three, the one after "now" included (it exists).
  expect(figures.membersByLanguage).toEqual([
    { locale: "ja", members: 5 },
    { locale: "en", members: 2 },
    { locale: null, members: 1 },
  ]);
  expect(figures.membersByReferrer).toEqual([
    { service: "id", members: 4 },
    { service: "data", members: 2 },
    { service: "compe", members: 0 },
    { service: "online", members: 0 },
    { service: "shop", members: 1 },
    { service: "legacy", members: 1 },
  ]);
});

test("figures are kept for a minute, then shown while new ones are computed", async () => {
  const { db } = database();
  const first = await dashboardFigures(db, NOW, { maxAgeMs: 0 });
  await insertDirectoryMembers(db, [member("2026-11-10T00:00:00Z")]);
  const november = (figures: DashboardFigures) => figures.signUpsByMonth.at(-1)?.signUps;
  const minuteLater = new Date(NOW.getTime() + DASHBOARD_CACHE_TTL_MS);

  expect(await dashboardFigures(db, new Date(NOW.getTime() + DASHBOARD_CACHE_TTL_MS - 1))).toBe(first);
  // A minute on, the view still gets the old figures at once, and the new ones follow behind it.
  expect(await dashboardFigures(db, minuteLater)).toBe(first);
  await vi.waitFor(async () => expect(november(await dashboardFigures(db, minuteLater))).toBe(november(first)! + 1));
  expect(november(await dashboardFigures(db, NOW, { maxAgeMs: 0 }))).toBe(november(first)! + 1);
});

test("the months are Japanese months, across a year's end", () => {
  // 1 February 2026 00:30 in Japan, still January in UTC.
  const { months, start } = lastTwelveMonths(new Date("2026-01-31T15:30:00Z"));
  expect(months[0]).toBe("2025-03");
  expect(months.at(-1)).toBe("2026-02");
  expect(start.toISOString()).toBe("2025-02-28T15:00:00.000Z");
});
