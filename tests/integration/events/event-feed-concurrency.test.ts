import { randomInt, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { asc, desc } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { accountEvents } from "~db/schema";
import { parseConfig } from "~/config.server";
import { recordAccountEvents } from "~/domain/events/account-events.server";
import { type FeedEvent, type FeedPage, readAccountEventFeed } from "~/domain/events/event-feed.server";
import { publishAccountEvents } from "~/domain/events/event-publishing.server";
import { localPostgresBin, startTestPostgres } from "../../support/postgres-server";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import { makeTempDir } from "../../support/temp-dir";
import { createOwnDatabase, openTestDatabase } from "../../support/test-database";

// The feed's promise under load: a reader that polls with its cursor while writers commit ends with every committed
// event exactly once, in position order, none skipped, even when a transaction that recorded its event early commits
// long after the reader passed newer events. On PostgreSQL (a throwaway server when the machine has PostgreSQL's
// binaries, as CI's does, or TEST_DATABASE_URL; not a *.db test, so CI's PostgreSQL pass does not run it a second
// time on the same database): 50 writers on two instances, i.e. two openDatabase handles with a connection pool
// each, some transactions held open for a while, some rolled back, and both instances' sequencers running beside the
// reader's. On PGlite (one connection, so transactions cannot overlap)
// a smaller version of the same run. Once more on PostgreSQL with the reader polling GET /api/events of a production
// build over HTTP.
const temp = makeTempDir("event-feed-concurrency");
let instances: DatabaseHandle[] = [];
let databaseUrl: string | undefined;
let stopServer = async () => {};
let dropDatabase = async () => {};

beforeAll(async () => {
  const server = await startTestPostgres();
  if (server) {
    stopServer = server.stop;
    const own = await createOwnDatabase(server.url, "event_feed_concurrency");
    dropDatabase = own.drop;
    databaseUrl = own.url;
    instances = [0, 1].map(() => openDatabase({ databaseUrl: own.url, dataDir: temp.dir }));
  } else {
    instances = [openTestDatabase(temp.dir, undefined)];
  }
  await instances[0]!.migrate();
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
  await dropDatabase();
  await stopServer();
  temp.remove();
});

// No sibling is subscribed: the sequencer only numbers (queueing deliveries is the publishing test's).
const settings = parseConfig({ SESSION_SECRETS: "x".repeat(32) }).siblingEvents;

const RUNS_ON =
  process.env.TEST_DATABASE_URL || localPostgresBin()
    ? "PostgreSQL, 50 writers on two instances"
    : "PGlite, 10 writers";

class RolledBack extends Error {}

/**
 * `writers` concurrent writers, spread over the instances, each committing `transactionsPerWriter` transactions of
 * one to three events of one of a few members (so a member's events also race for its next sequence number), with
 * random small delays inside; about one in eight stays open a while after writing (the late commit), about one in
 * ten rolls back. Meanwhile each instance's sequencer runs now and then, as their delivery workers do, and `poll`
 * reads the feed page by page from its cursor until the writers are done and a read that began after the last
 * commit finds nothing more. Answers what was committed, what rolled back and what the reader read, in order.
 */
async function writeWhileReading(options: {
  writers: number;
  transactionsPerWriter: number;
  readPage: (cursor: string, poll: number) => Promise<FeedPage>;
}) {
  const members = Array.from({ length: Math.ceil(options.writers / 5) }, () => randomUUID());
  const committed = new Set<string>();
  const rolledBack = new Set<string>();
  let writing = true;

  async function write(writer: number) {
    const db = instances[writer % instances.length]!.db;
    const sub = members[writer % members.length]!;
    for (let transaction = 0; transaction < options.transactionsPerWriter; transaction += 1) {
      const markers = Array.from({ length: randomInt(1, 3) }, () => randomUUID());
      const heldMs = randomInt(8) === 0 ? randomInt(150, 400) : randomInt(0, 15);
      const rollBack = randomInt(10) === 0;
      try {
        await db.transaction(async (tx) => {
          await sleep(randomInt(0, 10));
          await recordAccountEvents(
            tx,
            markers.map((marker) => ({
              sub,
              occurredAt: new Date(),
              type: "member.updated" as const,
              data: { changed: { marker } },
            })),
          );
          await sleep(heldMs);
          if (rollBack) throw new RolledBack();
        });
        markers.forEach((marker) => committed.add(marker));
      } catch (error) {
        if (!(error instanceof RolledBack)) throw error;
        markers.forEach((marker) => rolledBack.add(marker));
      }
    }
  }

  async function publishWhileWriting(instance: DatabaseHandle) {
    while (writing) {
      await publishAccountEvents(instance.db, settings, new Date());
      await sleep(randomInt(0, 20));
    }
  }

  const read: FeedEvent[] = [];
  async function readWhileWriting() {
    let cursor = "0";
    for (let poll = 0; ; poll += 1) {
      const writersDone = !writing;
      const page = await options.readPage(cursor, poll);
      read.push(...page.events);
      expect(Number(page.next_cursor)).toBeGreaterThanOrEqual(Number(cursor));
      cursor = page.next_cursor;
      if (writersDone && page.events.length === 0) return;
      await sleep(randomInt(0, 5));
    }
  }

  const reader = readWhileWriting();
  const publishers = instances.map(publishWhileWriting);
  await Promise.all(Array.from({ length: options.writers }, (_, writer) => write(writer)));
  writing = false;
  await Promise.all([reader, ...publishers]);
  return { members, committed, rolledBack, read };
}

/** Every committed event once, nothing rolled back, positions 1, 2, 3… in order, each member's sequence gapless. */
function expectEveryEventOnceInOrder(run: Awaited<ReturnType<typeof writeWhileReading>>, firstPosition = 1) {
  const { read, committed, rolledBack, members } = run;
  const markersRead = read.map((event) => (event.data as { changed: { marker: string } }).changed.marker);
  expect(markersRead).toHaveLength(committed.size);
  expect(new Set(markersRead)).toEqual(committed);
  expect(markersRead.filter((marker) => rolledBack.has(marker))).toEqual([]);
  expect(read.map((event) => event.position)).toEqual(read.map((_, index) => firstPosition + index));
  for (const sub of members) {
    const sequences = read.filter((event) => event.sub === sub).map((event) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences.map((_, index) => index + 1));
  }
}

test(`a reader polling throughout gets every committed event exactly once, in order, none skipped (${RUNS_ON})`, async () => {
  const onPostgres = instances.length === 2;
  const run = await writeWhileReading({
    writers: onPostgres ? 50 : 10,
    transactionsPerWriter: onPostgres ? 6 : 3,
    // Through either instance, as a sibling's requests reach whichever serves them.
    readPage: async (cursor, poll) => {
      const read = await readAccountEventFeed(instances[poll % instances.length]!.db, settings, {
        query: { after: cursor, limit: randomInt(1, 50) },
        now: new Date(),
      });
      // Nothing is purged here, so no cursor can expire.
      if (read.kind !== "page") throw new Error(`the feed answered ${read.kind}`);
      return read.page;
    },
  });
  expectEveryEventOnceInOrder(run);

  if (onPostgres) {
    // The run did what it is for: events were committed late, behind events recorded after them, and the reader
    // still found them (numbered after, not before, the events it had already read).
    const rows = await instances[0]!.db
      .select({ recordedAt: accountEvents.recordedAt })
      .from(accountEvents)
      .orderBy(asc(accountEvents.feedPosition));
    let latestRecordedAt = 0;
    let lateCommits = 0;
    for (const row of rows) {
      if (row.recordedAt.getTime() < latestRecordedAt) lateCommits += 1;
      latestRecordedAt = Math.max(latestRecordedAt, row.recordedAt.getTime());
    }
    expect(lateCommits).toBeGreaterThan(0);
  }
}, 120_000);

test.runIf(process.env.TEST_DATABASE_URL || localPostgresBin())(
  "the same through HTTP: a sibling polling GET /api/events of the production build misses nothing",
  async () => {
    const feedToken = "concurrency-feed-token-".padEnd(40, "c");
    const server = await startServerProcess("preview", {
      LOG_LEVEL: "silent",
      DATABASE_URL: databaseUrl!,
      SERVICE_FEED_TOKENS_DATA: feedToken,
    });
    try {
      const [head] = await instances[0]!.db
        .select({ position: accountEvents.feedPosition })
        .from(accountEvents)
        .orderBy(desc(accountEvents.feedPosition))
        .limit(1);
      const run = await writeWhileReading({
        writers: 20,
        transactionsPerWriter: 4,
        readPage: async (cursor) => {
          // The feed starts where the first test left it.
          const after = cursor === "0" ? String(head?.position ?? 0) : cursor;
          const response = await fetch(`${server.url}/api/events?after=${after}&limit=${randomInt(1, 50)}`, {
            headers: { Authorization: `Bearer ${feedToken}` },
          });
          expect(response.status).toBe(200);
          return (await response.json()) as FeedPage;
        },
      });
      expectEveryEventOnceInOrder(run, (head?.position ?? 0) + 1);
    } finally {
      await server.stop();
    }
  },
  SERVER_START_TIMEOUT_MS + 120_000,
);
