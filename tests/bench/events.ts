/**
 * `npm run bench:events`: what pushing account events costs.
 *
 * 1. Deliveries per second: EVENTS committed events, each pushed to one subscribed sibling (a local receiver that
 *    answers 204 at once), by one worker process and by two on the same PostgreSQL, timed from the workers' start to
 *    the last delivery (the sequencer's numbering included).
 * 2. What recording an event adds to a profile save: the save's transaction (one member_profiles update) alone and
 *    with its `member.updated` event, alternating, one at a time, while an instance's worker runs, with no sibling
 *    subscribed and with one subscribed (its deliveries then run beside the saves).
 *
 * DATABASE_URL names the PostgreSQL server (a database `bench_events` is made fresh there); without it a throwaway
 * cluster is started (needs Debian's postgresql package). EVENTS (3000) and SAVES (1000) set the sizes.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { eq, isNotNull, sql } from "drizzle-orm";
import { openDatabase } from "~db/client.server";
import { accountEvents, eventDeliveries, memberProfiles } from "~db/schema";
import { recordAccountEvent, recordAccountEvents } from "~/domain/events/account-events.server";
import { spawnNodeScript } from "../support/node-child";
import { startTestPostgres } from "../support/postgres-server";
import { REPO_ROOT, addCleanup, ensureBenchDatabase, makeTempDir, printTable, runBenchmarkMain } from "./bench-support";

const EVENTS = Number(process.env.EVENTS ?? 3000);
const SAVES = Number(process.env.SAVES ?? 1000);
const WARMUP_SAVES = 100;
const MEMBERS = 200;
const SECRET = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;

async function startReceiver() {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  addCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/data`, received: () => received };
}

/** Worker processes, ready and waiting for "go"; stopped (SIGTERM) by the returned function. */
async function startWorkers(count: number, env: Record<string, string>) {
  const children: ChildProcess[] = [];
  for (let index = 0; index < count; index++) {
    const child = spawnNodeScript("tests/bench/event-worker-child.ts", [], {
      cwd: REPO_ROOT,
      env: { ...process.env, SESSION_SECRETS: "b".repeat(32), LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    while (!output.includes("ready")) {
      if (child.exitCode !== null) throw new Error(`A worker exited before it was ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    children.push(child);
  }
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }),
    );
  };
  addCleanup(stop);
  return { go: () => children.forEach((child) => child.send("go")), stop };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

await runBenchmarkMain(async () => {
  const server = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : await startTestPostgres();
  if (!server) throw new Error("Set DATABASE_URL to a PostgreSQL server, or install postgresql for a throwaway one");
  if ("stop" in server) addCleanup(() => server.stop());
  const url = new URL(server.url);
  url.pathname = "/bench_events";
  await ensureBenchDatabase(url.toString(), { fresh: true });
  const database = openDatabase({ databaseUrl: url.toString(), dataDir: makeTempDir("events") });
  addCleanup(() => database.close());
  await database.migrate();
  const { db } = database;
  const receiver = await startReceiver();
  const subscribed = {
    DATABASE_URL: url.toString(),
    SERVICE_WEBHOOK_URL_DATA: receiver.url,
    SERVICE_WEBHOOK_SECRETS_DATA: SECRET,
  };

  // 1. Deliveries per second.
  const throughput: string[][] = [];
  for (const instances of [1, 2]) {
    await db.delete(accountEvents);
    const workers = await startWorkers(instances, subscribed);
    const subs = Array.from({ length: MEMBERS }, () => randomUUID());
    const now = new Date();
    await recordAccountEvents(
      db,
      Array.from({ length: EVENTS }, (_, index) => ({
        sub: subs[index % MEMBERS]!,
        occurredAt: now,
        type: "member.updated" as const,
        data: { changed: { occupation: `job ${index}` } },
      })),
    );
    const before = receiver.received();
    const started = performance.now();
    workers.go();
    for (;;) {
      const [row] = await db
        .select({ delivered: sql<number>`count(*)::int` })
        .from(eventDeliveries)
        .where(isNotNull(eventDeliveries.deliveredAt));
      if (row!.delivered >= EVENTS) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    await workers.stop();
    throughput.push([
      `${instances} instance${instances > 1 ? "s" : ""}`,
      String(EVENTS),
      String(receiver.received() - before),
      seconds.toFixed(2),
      (EVENTS / seconds).toFixed(0),
    ]);
  }
  console.log(`\nDeliveries per second (${EVENTS} events, one subscribed sibling, a receiver answering 204):\n`);
  printTable(["workers", "events", "POSTs received", "seconds", "deliveries/s"], throughput);

  // 2. What recording an event adds to a profile save.
  const saves: string[][] = [];
  const sub = randomUUID();
  await db.insert(memberProfiles).values({ sub, occupation: "start" });
  const saveProfile = (withEvent: boolean, index: number) =>
    db.transaction(async (tx) => {
      const occupation = `job ${index}`;
      await tx.update(memberProfiles).set({ occupation, updatedAt: new Date() }).where(eq(memberProfiles.sub, sub));
      if (withEvent) {
        await recordAccountEvent(tx, {
          sub,
          occurredAt: new Date(),
          type: "member.updated",
          data: { changed: { occupation } },
        });
      }
    });
  for (const [label, env] of [
    ["no sibling subscribed", { DATABASE_URL: url.toString() }],
    ["one sibling subscribed", subscribed],
  ] as const) {
    await db.delete(accountEvents);
    const workers = await startWorkers(1, env);
    workers.go();
    const timings = { without: [] as number[], with: [] as number[] };
    for (let index = 0; index < WARMUP_SAVES + SAVES; index++) {
      // Alternating, so that whatever changes during the run affects both alike.
      const withEvent = index % 2 === 1;
      const started = performance.now();
      await saveProfile(withEvent, index);
      if (index >= WARMUP_SAVES) timings[withEvent ? "with" : "without"].push(performance.now() - started);
    }
    await workers.stop();
    for (const [kind, values] of Object.entries(timings)) {
      const sorted = values.sort((a, b) => a - b);
      saves.push([
        `${label}, save ${kind} its event`,
        percentile(sorted, 0.5).toFixed(2),
        percentile(sorted, 0.99).toFixed(2),
      ]);
    }
  }
  console.log(`\nA profile save's transaction, ${SAVES / 2} of each, one at a time, while one worker runs:\n`);
  printTable(["", "p50 ms", "p99 ms"], saves);
});
