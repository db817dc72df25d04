import { AdminAddUserToGroupCommand } from "@aws-sdk/client-cognito-identity-provider";
import { eq, inArray } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { directoryReconcileRuns, memberDirectory, scheduledJobTurns } from "~db/schema";
import {
  RECONCILE_PAGE_SIZE,
  latestReconcileReport,
  reconcileDirectory,
  scheduleDirectoryReconcile,
} from "~/domain/directory/directory-reconcile.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { StandIns } from "~/server/start-server";
import { systemClock } from "~/services.server";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { getRequestLog, resetRequestCounts, seedUsers } from "../../support/stand-ins/stand-in/harness-client";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";

// The real parts: the Cognito stand-in over HTTP through the AWS SDK (500 users seeded straight into its store: nine
// pages of ListUsers, enough to pause a walk midway and to see its pace), and PGlite, or PostgreSQL when
// TEST_DATABASE_URL is set.
const temp = makeTempDir("directory-reconcile");
let stack: StandIns;
let handle: DatabaseHandle;
let dropOwnDatabase = async () => {};
let seeded: { sub: string; email: string }[];
const SEEDED_USERS = 500;
/** Below a run's request count, so the rate check sees the pacer at work; a run still takes about two seconds. */
const REQUESTS_PER_SECOND = 5;
/** A walk slow enough to be caught midway (taken over, or stopped). */
const SLOW_REQUESTS_PER_SECOND = 1;
const RECONCILE_OPERATIONS = new Set(["ListUsers", "ListGroups", "ListUsersInGroup"]);

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = await openOwnDatabase();
  await handle.migrate();
  seeded = await seedUsers(
    endpoint(),
    cognitoConfigOf(stack).userPoolId,
    Array.from({ length: SEEDED_USERS }, (_, index) => ({
      email: `member-${index}@scale.example.jp`,
      attributes: { given_name: `Given${index}`, family_name: `Family${index}`, locale: index % 2 ? "ja" : "en" },
    })),
  );
}, 180_000);

afterAll(async () => {
  await handle?.close();
  await dropOwnDatabase();
  await stack?.stop();
  temp.remove();
});

/**
 * A run marks every directory row it did not see as missing, and these tests empty the directory: on a PostgreSQL
 * server shared with the other *.db.test.ts files running at the same time, they get a database of their own.
 */
async function openOwnDatabase(): Promise<DatabaseHandle> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return openTestDatabase(temp.dir);
  const name = `directory_reconcile_${crypto.randomUUID().slice(0, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  dropOwnDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name}`);
    await admin.end();
  };
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return openDatabase({ databaseUrl: url.toString(), dataDir: temp.dir });
}

const endpoint = () => stack.env.COGNITO_ENDPOINT!;

/** Cognito written behind the app's back: the bare adapter, which records nothing in the directory. */
const cognitoDirectly = () => withDomainErrors(createIdentityProvider(cognitoConfigOf(stack)));

const deps = () => ({ db: handle.db, identity: cognitoDirectly(), clock: systemClock });

/** Each test starts from an empty directory and no runs, and fills it with one run of its own. */
async function emptyDirectoryFilledOnce() {
  await handle.db.delete(memberDirectory);
  await handle.db.delete(directoryReconcileRuns);
  const outcome = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND });
  if (outcome.kind !== "finished") throw new Error(`the filling run ended ${outcome.kind}`);
  return outcome.run;
}

const directoryRows = (subs: string[]) =>
  handle.db.select().from(memberDirectory).where(inArray(memberDirectory.sub, subs));

/** The most requests the stand-in received within any one second (a sliding window over the request log). */
function busiestSecond(times: number[]): number {
  let busiest = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= 1000) first++;
    busiest = Math.max(busiest, last - first + 1);
  }
  return busiest;
}

async function reconcileRequestTimes(): Promise<{ listUsers: number[]; all: number[] }> {
  const log = (await getRequestLog(endpoint())).filter((request) => RECONCILE_OPERATIONS.has(request.operation));
  return {
    listUsers: log.filter((request) => request.operation === "ListUsers").map((request) => request.at),
    all: log.map((request) => request.at),
  };
}

test("one run finds and fixes every drifted user, reports the right counts, and keeps to its pace", async () => {
  const filled = await emptyDirectoryFilledOnce();
  expect(filled.usersSeen).toBeGreaterThanOrEqual(SEEDED_USERS);
  expect(filled.drift).toMatchObject({ added: filled.usersSeen, changed: 0, missing: 0 });

  // Drift: rows lost from the directory, users changed and deleted in Cognito behind the app's back.
  const lostRows = seeded.slice(0, 25).map((user) => user.sub);
  await handle.db.delete(memberDirectory).where(inArray(memberDirectory.sub, lostRows));
  const identity = cognitoDirectly();
  const renamed = seeded.slice(100, 130);
  for (const user of renamed) await identity.updateAttributes(user.sub, { given_name: "Changed" });
  const disabled = seeded.slice(200, 205);
  for (const user of disabled) await identity.disableUser(user.sub);
  const promoted = seeded[300]!;
  const client = createCognitoClient(cognitoConfigOf(stack));
  await client.send(
    new AdminAddUserToGroupCommand({
      UserPoolId: cognitoConfigOf(stack).userPoolId,
      Username: promoted.sub,
      GroupName: "admin",
    }),
  );
  client.destroy();
  const deleted = seeded.slice(400, 420);
  for (const user of deleted) await identity.deleteUser(user.sub);

  await resetRequestCounts(endpoint());
  const outcome = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND });
  expect(outcome.kind).toBe("finished");
  const run = outcome.kind === "finished" ? outcome.run : null;
  expect(run).toMatchObject({
    status: "finished",
    usersSeen: filled.usersSeen - deleted.length,
    drift: { added: lostRows.length, changed: renamed.length + disabled.length + 1, missing: deleted.length },
  });
  expect(run?.drift.examples).toEqual(
    expect.arrayContaining([
      { sub: lostRows[0], kind: "added" },
      { sub: renamed[0]!.sub, kind: "changed", fields: ["givenName"] },
      { sub: deleted[0]!.sub, kind: "missing" },
    ]),
  );

  // Fixed: the rows say what Cognito says.
  expect(await directoryRows(lostRows)).toHaveLength(lostRows.length);
  const renamedRows = await directoryRows(renamed.map((user) => user.sub));
  expect(renamedRows.every((row) => row.givenName === "Changed")).toBe(true);
  const disabledRows = await directoryRows(disabled.map((user) => user.sub));
  expect(disabledRows.every((row) => !row.enabled && row.memberStatus === "disabled")).toBe(true);
  expect((await directoryRows([promoted.sub]))[0]?.groups).toEqual(["admin"]);
  const deletedRows = await directoryRows(deleted.map((user) => user.sub));
  expect(deletedRows.every((row) => row.missingFromCognitoAt instanceof Date)).toBe(true);

  // The pace: never more than the configured requests in any one second, ListUsers or all the run's requests.
  const times = await reconcileRequestTimes();
  const pages = Math.ceil(run!.usersSeen / RECONCILE_PAGE_SIZE);
  expect(times.listUsers).toHaveLength(pages);
  console.log(
    `reconcile: ${run!.usersSeen} users, ${times.all.length} requests, busiest second ${busiestSecond(times.all)} ` +
      `(configured ${REQUESTS_PER_SECOND}/s)`,
  );
  expect(busiestSecond(times.listUsers)).toBeLessThanOrEqual(REQUESTS_PER_SECOND);
  expect(busiestSecond(times.all)).toBeLessThanOrEqual(REQUESTS_PER_SECOND);

  // Nothing left: the next run finds no drift at all.
  const again = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND });
  expect(again.kind === "finished" && again.run.drift).toEqual({ added: 0, changed: 0, missing: 0, examples: [] });
  expect(await latestReconcileReport(handle.db)).toMatchObject({
    status: "finished",
    usersSeen: run!.usersSeen,
    drift: { added: 0, changed: 0, missing: 0 },
  });
}, 240_000);

test("a run stopped after some pages resumes from its page token and ends with the same result", async () => {
  const filled = await emptyDirectoryFilledOnce();
  const lostRows = seeded.slice(250, 253).map((user) => user.sub);
  await handle.db.delete(memberDirectory).where(inArray(memberDirectory.sub, lostRows));
  const identity = cognitoDirectly();
  // Late in the walk, so that the resumed part is the one that finds it.
  const renamed = seeded[450]!;
  await identity.updateAttributes(renamed.sub, { family_name: "Renamed" });
  const deleted = seeded[10]!;
  await identity.deleteUser(deleted.sub);

  await resetRequestCounts(endpoint());
  const stoppedAfter = 5;
  const paused = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND, maxPages: stoppedAfter });
  expect(paused.kind).toBe("paused");
  const [stopped] = await handle.db
    .select()
    .from(directoryReconcileRuns)
    .where(eq(directoryReconcileRuns.status, "running"));
  expect(stopped).toMatchObject({ pagesRead: stoppedAfter, paginationToken: expect.any(String) });

  const resumed = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND });
  expect(resumed.kind).toBe("finished");
  const run = resumed.kind === "finished" ? resumed.run : null;
  const pages = Math.ceil((filled.usersSeen - 1) / RECONCILE_PAGE_SIZE);
  // The same run, every page read exactly once across the two calls: none read again from the start.
  expect(run).toMatchObject({
    id: stopped!.id,
    pagesRead: pages,
    usersSeen: filled.usersSeen - 1,
    drift: { added: lostRows.length, changed: 1, missing: 1 },
  });
  expect((await reconcileRequestTimes()).listUsers).toHaveLength(pages);
  expect((await directoryRows([renamed.sub]))[0]?.familyName).toBe("Renamed");
  expect((await directoryRows([deleted.sub]))[0]?.missingFromCognitoAt).toBeInstanceOf(Date);
}, 240_000);

test("two runners at once: one walks, the other finds the run taken and reads nothing", async () => {
  await emptyDirectoryFilledOnce();
  await resetRequestCounts(endpoint());
  const [first, second] = await Promise.all([
    reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND }),
    reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND }),
  ]);
  expect([first.kind, second.kind].sort()).toEqual(["busy", "finished"]);
  const finished = first.kind === "finished" ? first.run : second.kind === "finished" ? second.run : null;
  expect((await reconcileRequestTimes()).listUsers).toHaveLength(finished!.pagesRead);
}, 240_000);

test("a run whose worker looks dead is taken over from its page token, and the old worker stops without writing", async () => {
  await emptyDirectoryFilledOnce();
  const slow = reconcileDirectory(deps(), { requestsPerSecond: SLOW_REQUESTS_PER_SECOND });
  await expect
    .poll(
      async () =>
        (await handle.db.select().from(directoryReconcileRuns).where(eq(directoryReconcileRuns.status, "running")))[0]
          ?.pagesRead ?? 0,
      { timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(2);
  // A fresh heartbeat is respected...
  expect((await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND })).kind).toBe("busy");
  // ...a stale one (here: any age counts as stale) is taken over.
  const takeover = await reconcileDirectory(deps(), { requestsPerSecond: REQUESTS_PER_SECOND, staleAfterMs: 0 });
  expect((await slow).kind).toBe("lost");
  expect(takeover.kind).toBe("finished");
  const run = takeover.kind === "finished" ? takeover.run : null;
  // Every page once: the pages the first worker committed plus the ones the second read, none twice.
  expect(run!.pagesRead).toBe(Math.ceil(run!.usersSeen / RECONCILE_PAGE_SIZE));
  expect(run!.drift).toMatchObject({ added: 0, changed: 0, missing: 0 });
}, 240_000);

test("the server's schedule fills an empty directory soon after start; stopping it releases the walk in hand", async () => {
  await handle.db.delete(memberDirectory);
  await handle.db.delete(directoryReconcileRuns);
  // A schedule of its own each time: whichever instance ticked last has no bearing here.
  await handle.db.delete(scheduledJobTurns);
  const stopFast = scheduleDirectoryReconcile(deps(), {
    requestsPerSecond: REQUESTS_PER_SECOND,
    intervalMs: 60 * 60 * 1000,
    firstRunDelayMs: 0,
  });
  try {
    await expect
      .poll(async () => (await latestReconcileReport(handle.db))?.status, { timeout: 60_000, interval: 500 })
      .toBe("finished");
  } finally {
    stopFast();
  }
  const report = await latestReconcileReport(handle.db);
  expect(await handle.db.$count(memberDirectory)).toBe(report!.usersSeen);

  // A server shutting down mid-walk: the run stays to be resumed, released at once for whichever instance is next.
  await handle.db.delete(directoryReconcileRuns);
  await handle.db.delete(scheduledJobTurns);
  const stopSlow = scheduleDirectoryReconcile(deps(), {
    requestsPerSecond: SLOW_REQUESTS_PER_SECOND,
    intervalMs: 60 * 60 * 1000,
    firstRunDelayMs: 0,
  });
  const runningRun = async () =>
    (await handle.db.select().from(directoryReconcileRuns).where(eq(directoryReconcileRuns.status, "running")))[0];
  await expect.poll(async () => (await runningRun())?.pagesRead ?? 0, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  stopSlow();
  await expect.poll(async () => (await runningRun())?.heartbeatAt.getTime(), { timeout: 10_000 }).toBe(0);
}, 240_000);
