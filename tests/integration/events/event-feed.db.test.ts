import { randomUUID } from "node:crypto";
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { accountEvents } from "~db/schema";
import { ErrorEnvelopeSchema } from "~/api/contract";
import {
  ACCOUNT_EVENT_RETENTION_DAYS,
  type RecordedAccountEvent,
  purgeExpiredAccountEvents,
  recordAccountEvents,
} from "~/domain/events/account-events.server";
import {
  FEED_PAGE_SIZE_DEFAULT,
  FEED_PAGE_SIZE_MAX,
  FEED_READS_PER_SERVICE,
  type FeedPage,
  countFeedRead,
} from "~/domain/events/event-feed.server";
import * as events from "~/routes/api/events";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { routeCalls } from "../../support/route-calls";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";
import { useTestServices } from "../../support/test-services";

// GET /api/events called as the HTTP server calls it (the route module, the API's handler, the real database), with
// the feed tokens of two services configured. The file has a database of its own on PostgreSQL: the feed is every
// event, so another file's events would land on its pages.
const ORIGIN = "http://localhost:3994";
const DATA_TOKEN = "data-feed-token-".padEnd(40, "d");
const SHOP_TOKEN = "shop-feed-token-".padEnd(40, "s");
const SHOP_NEXT_TOKEN = "shop-feed-token-next-".padEnd(40, "n");
const ONLINE_TOKEN = "online-feed-token-".padEnd(40, "o");
// One minute on the app's clock: the rate limit's window cannot end halfway through a test.
const NOW = new Date("2026-12-03T12:00:30Z");
const app = useTestServices({
  label: "event-feed",
  origin: ORIGIN,
  clock: { now: () => NOW },
  ownDatabase: true,
  env: {
    SERVICE_FEED_TOKENS_DATA: DATA_TOKEN,
    SERVICE_FEED_TOKENS_SHOP: `${SHOP_TOKEN},${SHOP_NEXT_TOKEN}`,
    SERVICE_FEED_TOKENS_ONLINE: ONLINE_TOKEN,
  },
});
const calls = routeCalls(ORIGIN, () => app.services);
let sdk: StandInSdk;

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});

afterAll(() => {
  sdk?.destroy();
});

async function readFeed(query: string, authorization: string | null = `Bearer ${DATA_TOKEN}`) {
  const request = new Request(`${ORIGIN}/api/events${query}`, {
    headers: { "Accept-Language": "en", ...(authorization ? { Authorization: authorization } : {}) },
  });
  const context = await calls.context(request, null);
  const response = await events.loader({ request, context, params: {}, pattern: "/api/events" } as never);
  const json: unknown = await response.json();
  return { response, status: response.status, json, error: ErrorEnvelopeSchema.safeParse(json).data?.error };
}

/** Reads every page from `after` on and answers the feed's end: where a reader that has caught up stands. */
async function catchUp(after = "0"): Promise<string> {
  for (;;) {
    const { json } = await readFeed(`?after=${after}&limit=${FEED_PAGE_SIZE_MAX}`);
    const page = json as FeedPage;
    if (page.events.length === 0) return after;
    after = page.next_cursor;
  }
}

function eventsOf(sub: string, count: number): RecordedAccountEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    sub,
    occurredAt: new Date(Date.UTC(2026, 11, 3, 10, 0, index)),
    type: "member.newsletter_changed",
    data: { newsletter: index % 2 === 0 },
  }));
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Records `count` events of a new member, has them numbered by reading the feed, and answers their positions. */
async function recordNumbered(count: number): Promise<number[]> {
  const start = Number(await catchUp());
  await recordAccountEvents(app.db, eventsOf(randomUUID(), count));
  const end = Number(await catchUp(String(start)));
  expect(end).toBe(start + count);
  return Array.from({ length: count }, (_, index) => start + 1 + index);
}

/**
 * Runs the purge at NOW with every event recorded within the retention except those at `positions`, recorded past
 * it: the test's own dates, whatever the wall clock gave the rows.
 */
async function purgeRecordedPastRetention(positions: number[]) {
  const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
  await app.db.update(accountEvents).set({ recordedAt: daysAgo(ACCOUNT_EVENT_RETENTION_DAYS - 1) });
  await app.db
    .update(accountEvents)
    .set({ recordedAt: daysAgo(ACCOUNT_EVENT_RETENTION_DAYS + 1) })
    .where(inArray(accountEvents.feedPosition, positions));
  await purgeExpiredAccountEvents(app.db, NOW);
}

async function allPositions(): Promise<number[]> {
  const rows = await app.db.select({ position: accountEvents.feedPosition }).from(accountEvents);
  return rows.map((row) => row.position!);
}

async function expectCursorExpired(after: number) {
  const { response, status, error } = await readFeed(`?after=${after}`);
  expect(status, `after=${after}`).toBe(410);
  expect(response.headers.get("Cache-Control")).toBe("no-store");
  expect(error?.code).toBe("cursor_expired");
  expect(error?.message).toMatch(/without `after`.*POST \/api\/refresh-user/);
}

test("the feed pages through committed events in position order, each page going on where the last ended", async () => {
  const start = await catchUp();
  const sub = randomUUID();
  await recordAccountEvents(app.db, [
    ...eventsOf(sub, 2),
    {
      sub,
      occurredAt: new Date("2026-12-03T11:00:00Z"),
      type: "session.revoked",
      data: { sid: "jti-1", reason: "signed-out" },
    },
  ]);
  await recordAccountEvents(app.db, eventsOf(sub, 2));

  const first = await readFeed(`?after=${start}&limit=2`);
  expect(first.status).toBe(200);
  expect(first.response.headers.get("Cache-Control")).toBe("no-store");
  const firstPage = first.json as FeedPage;
  expect(firstPage.events).toHaveLength(2);
  expect(firstPage.events[0]).toEqual({
    id: expect.any(String),
    type: "member.newsletter_changed",
    timestamp: "2026-12-03T10:00:00.000Z",
    sub,
    sequence: 1,
    data: { newsletter: true },
    position: Number(start) + 1,
  });
  expect(firstPage.next_cursor).toBe(String(firstPage.events[1]!.position));

  const rest = (await readFeed(`?after=${firstPage.next_cursor}`)).json as FeedPage;
  const all = [...firstPage.events, ...rest.events];
  expect(all.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
  expect(all.map((event) => event.position)).toEqual([1, 2, 3, 4, 5].map((offset) => Number(start) + offset));
  expect(all[2]).toMatchObject({ type: "session.revoked", data: { sid: "jti-1", reason: "signed-out" } });
  expect(new Set(all.map((event) => event.id)).size).toBe(5);

  // Nothing newer: no events, and the cursor sent comes back, so a reader polls from where it stood.
  const end = (await readFeed(`?after=${rest.next_cursor}`)).json as FeedPage;
  expect(end).toEqual({ events: [], next_cursor: rest.next_cursor });
  // Without `after`, the feed starts at the oldest event it keeps.
  expect(((await readFeed("?limit=1")).json as FeedPage).events[0]!.position).toBe(1);
});

test(`a page holds ${FEED_PAGE_SIZE_DEFAULT} events unless asked for 1 to ${FEED_PAGE_SIZE_MAX}`, async () => {
  const start = await catchUp();
  await recordAccountEvents(app.db, eventsOf(randomUUID(), FEED_PAGE_SIZE_DEFAULT + 1));
  expect(((await readFeed(`?after=${start}`)).json as FeedPage).events).toHaveLength(FEED_PAGE_SIZE_DEFAULT);
  expect(((await readFeed(`?after=${start}&limit=1`)).json as FeedPage).events).toHaveLength(1);
  const largest = (await readFeed(`?after=${start}&limit=${FEED_PAGE_SIZE_MAX}`)).json as FeedPage;
  expect(largest.events).toHaveLength(FEED_PAGE_SIZE_DEFAULT + 1);
  // An empty parameter counts as absent, as everywhere in the API.
  expect(((await readFeed(`?after=${start}&limit=`)).json as FeedPage).events).toHaveLength(FEED_PAGE_SIZE_DEFAULT);
});

test.each([
  ["a negative cursor", "?after=-1"],
  ["a cursor with a leading zero", "?after=01"],
  ["a cursor that is no number", "?after=latest"],
  ["an event id as the cursor", `?after=${randomUUID()}`],
  ["a cursor past the largest safe integer", "?after=9999999999999999"],
  ["limit 0", "?limit=0"],
  [`limit ${FEED_PAGE_SIZE_MAX + 1}`, `?limit=${FEED_PAGE_SIZE_MAX + 1}`],
  ["a fractional limit", "?limit=1.5"],
  ["a limit that is no number", "?limit=all"],
])("%s is 400 invalid_feed_query, with the parameter named", async (_, query) => {
  const { status, error } = await readFeed(query);
  expect(status).toBe(400);
  expect(error?.code).toBe("invalid_feed_query");
  expect(error?.message).toMatch(/`after`.*`limit`/);
  expect(Object.keys(error?.fields ?? {})).toEqual([query.includes("after") ? "after" : "limit"]);
});

test("without a feed token, with another string, a member's access token or another scheme: 401, the API's envelope", async () => {
  const member = await createTestMember(app.standInPort, "event-feed-member");
  const { accessToken } = await bearerTokensFor(sdk, member.email, TEST_PASSWORD);
  const refusals = [
    [null, 'Bearer realm="member-api"'],
    [`Bearer ${DATA_TOKEN.slice(0, -1)}x`, 'Bearer realm="member-api", error="invalid_token"'],
    [`Bearer ${DATA_TOKEN}${DATA_TOKEN}`, 'Bearer realm="member-api", error="invalid_token"'],
    [`Bearer ${accessToken}`, 'Bearer realm="member-api", error="invalid_token"'],
    [
      `Basic ${Buffer.from(`data:${DATA_TOKEN}`).toString("base64")}`,
      'Bearer realm="member-api", error="invalid_token"',
    ],
  ] as const;
  for (const [authorization, challenge] of refusals) {
    const { response, status, error } = await readFeed("", authorization);
    expect(status, authorization ?? "none").toBe(401);
    expect(error?.code, authorization ?? "none").toBe("unauthorized");
    expect(response.headers.get("WWW-Authenticate"), authorization ?? "none").toBe(challenge);
  }
  // Each service's tokens, the one being rolled out included, read the same feed.
  for (const token of [SHOP_TOKEN, SHOP_NEXT_TOKEN])
    expect((await readFeed("?limit=1", `Bearer ${token}`)).status).toBe(200);
});

test("a service reading past its rate limit gets 429 with Retry-After, and other services read on", async () => {
  for (let read = 0; read < FEED_READS_PER_SERVICE.limit; read += 1) await countFeedRead(app.db, "online", NOW);
  const refused = await readFeed("?limit=1", `Bearer ${ONLINE_TOKEN}`);
  expect(refused.status).toBe(429);
  expect(refused.error?.code).toBe("rate_limited");
  expect(Number(refused.response.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect((await readFeed("?limit=1")).status).toBe(200);
});

// These purge, so they come last: the tests above read the feed from its first position.

test("a cursor the purge has passed is 410 cursor_expired; the one just before the oldest kept reads on", async () => {
  const [first, second, third, fourth] = await recordNumbered(4);
  await purgeRecordedPastRetention((await allPositions()).filter((position) => position <= second!));

  await expectCursorExpired(first!);
  // Nothing missed: the next event after this cursor is the oldest kept.
  const onTime = await readFeed(`?after=${second}`);
  expect(onTime.status).toBe(200);
  expect((onTime.json as FeedPage).events.map((event) => event.position)).toEqual([third, fourth]);
  // Starting again, without a cursor or with 0, reads from the oldest event kept.
  for (const query of ["?limit=1", "?after=0&limit=1"]) {
    const restart = await readFeed(query);
    expect(restart.status, query).toBe(200);
    expect((restart.json as FeedPage).events.map((event) => event.position)).toEqual([third]);
  }
  // A cursor beyond the head is no expired one: it waits for newer events.
  expect((await readFeed(`?after=${fourth! + 10}`)).json).toEqual({ events: [], next_cursor: String(fourth! + 10) });
});

test("an event numbered before a purged one goes with it, so a reader never skips the purged one unawares", async () => {
  // The middle event was recorded first and committed last (numbered after the one recorded after it): the purge
  // finds it past the retention while the first is not.
  const [first, middle, last] = await recordNumbered(3);
  await purgeRecordedPastRetention([middle!]);

  const kept = await app.db
    .select({ position: accountEvents.feedPosition })
    .from(accountEvents)
    .where(inArray(accountEvents.feedPosition, [first!, middle!, last!]));
  expect(kept).toEqual([{ position: last }]);
  await expectCursorExpired(first!);
  expect((await readFeed(`?after=${middle}`)).status).toBe(200);
});

test("when the purge took every event, a cursor below the head is 410 and the head reads on from the next event", async () => {
  const positions = await recordNumbered(2);
  const head = positions.at(-1)!;
  await purgeRecordedPastRetention(await allPositions());
  expect(await allPositions()).toEqual([]);

  await expectCursorExpired(head - 1);
  expect((await readFeed(`?after=${head}`)).json).toEqual({ events: [], next_cursor: String(head) });
  expect((await readFeed("")).json).toEqual({ events: [], next_cursor: "0" });
  await recordAccountEvents(app.db, eventsOf(randomUUID(), 1));
  expect(((await readFeed(`?after=${head}`)).json as FeedPage).events.map((event) => event.position)).toEqual([
    head + 1,
  ]);
});
