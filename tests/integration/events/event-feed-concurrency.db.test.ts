import { randomInt, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { asc } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { accountEvents } from "~db/schema";
import { parseConfig } from "~/config.server";
import { recordAccountEvents } from "~/domain/events/account-events.server";
import { type FeedEvent, readAccountEventFeed } from "~/domain/events/event-feed.server";
import { publishAccountEvents } from "~/domain/events/event-publishing.server";
import { localPostgresBin, startTestPostgres } from "../../support/postgres-server";
import { makeTempDir } from "../../support/temp-dir";
import { createOwnDatabase, openTestDatabase } from "../../support/test-database";

// The feed's promise under load: a reader that polls with its cursor while writers commit ends with every committed
// event exactly once, in position order, none skipped, even when a transaction that recorded its event early commits
// long after the reader passed newer events. On PostgreSQL (TEST_DATABASE_URL, as .ci/run gives the database tests,
// or a throwaway server when the machine has PostgreSQL's binaries): 50 writers on two instances, i.e. two
// openDatabase handles with a connection pool each, some transactions held open for a while, some rolled back, and
// both instances' sequencers running beside the reader's. On PGlite (one connection, so transactions cannot overlap)
// a smaller version of the same run.
const temp = makeTempDir("event-feed-concurrency");
let instances: DatabaseHandle[] = [];
let stopServer = async () => {};
let dropDatabase = async () => {};

beforeAll(async () => {
  const server = await startTestPostgres();
  if (server) {
    stopServer = server.stop;
    const own = await createOwnDatabase(server.url, "event_feed_concurrency");
    dropDatabase = own.drop;
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

class RolledBack extends Error {}

const RUNS_ON =
  process.env.TEST_DATABASE_URL || localPostgresBin()
    ? "PostgreSQL, 50 writers on two instances"
    : "PGlite, 10 writers";

test(`a reader polling throughout gets every committed event exactly once, in order, none skipped (${RUNS_ON})`, async () => {
  const onPostgres = instances.length === 2;
  const writers = onPostgres ? 50 : 10;
  const transactionsPerWriter = onPostgres ? 6 : 3;
  // A few members share writers, so one member's events also race for the member's next sequence number.
  const members = Array.from({ length: Math.ceil(writers / 5) }, () => randomUUID());
  const committed = new Set<string>();
  const rolledBack = new Set<string>();

  async function write(writer: number) {
    const db = instances[writer % instances.length]!.db;
    const sub = members[writer % members.length]!;
    for (let transaction = 0; transaction < transactionsPerWriter; transaction += 1) {
      const markers = Array.from({ length: randomInt(1, 3) }, () => randomUUID());
      // About one transaction in eight stays open well after its events are written: the late commit.
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

  let writing = true;
  // Each instance's own sequencer runs now and then beside the reader's, as their delivery workers do.
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
      // Through either instance, as a sibling's requests reach whichever serves them.
      const instance = instances[poll % instances.length]!;
      const page = await readAccountEventFeed(instance.db, settings, {
        query: { after: cursor, limit: randomInt(1, 50) },
        now: new Date(),
      });
      read.push(...page.events);
      expect(Number(page.next_cursor)).toBeGreaterThanOrEqual(Number(cursor));
      cursor = page.next_cursor;
      // Done once a read that began after the last commit found nothing more.
      if (writersDone && page.events.length === 0) return;
      await sleep(randomInt(0, 5));
    }
  }

  const reader = readWhileWriting();
  const publishers = instances.map(publishWhileWriting);
  await Promise.all(Array.from({ length: writers }, (_, writer) => write(writer)));
  writing = false;
  await Promise.all([reader, ...publishers]);

  const markersRead = read.map((event) => (event.data as { changed: { marker: string } }).changed.marker);
  // Every committed event, once; nothing of a rolled-back transaction.
  expect(markersRead).toHaveLength(committed.size);
  expect(new Set(markersRead)).toEqual(committed);
  expect(markersRead.filter((marker) => rolledBack.has(marker))).toEqual([]);
  // In position order, and no position skipped: the feed numbers 1, 2, 3… without gaps.
  expect(read.map((event) => event.position)).toEqual(read.map((_, index) => index + 1));
  // Each member's events are numbered 1, 2, 3… without gaps: a rolled-back event took no number.
  for (const sub of members) {
    const sequences = read.filter((event) => event.sub === sub).map((event) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences.map((_, index) => index + 1));
  }

  if (onPostgres) {
    // The run did what it is for: events were committed late, behind events recorded after them, and the reader
    // still found them (numbered after, not before, the events it had already read).
    const rows = await instances[0]!.db
      .select({ recordedAt: accountEvents.recordedAt, position: accountEvents.feedPosition })
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
