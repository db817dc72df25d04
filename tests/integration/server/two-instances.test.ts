import { once } from "node:events";
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { csvImportJobs, csvImportRows, emailChangeTokens, mailOutbox, memberSessions } from "~db/schema";
import { EMAIL_CHANGE_TOKEN_RETENTION_DAYS } from "~/domain/jobs/purge.server";
import type { StandIns } from "~/server/start-server";
import { type StandInSdk, connectToStandIn } from "../../support/bearer-tokens";
import { importCsv } from "../../support/csv-import-files";
import { localPostgresBin, startTestPostgres } from "../../support/postgres-server";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import type { TestServer } from "../../support/session-servers";
import { get, post, sessionPair, signIn, signedIn } from "../../support/session-http";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";
import { findFreePort } from "../../support/stand-ins/cognito-stand-in";
import { mailboxCountsTo, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { joinSettingsOf, startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { getFault, getRequestLog, resetHarness, setFault } from "../../support/stand-ins/stand-in/harness-client";
import { createOwnDatabase } from "../../support/test-database";
import { createTestMember } from "../../support/test-members";
import { makeTempDir } from "../../support/temp-dir";

/**
 * Two production-built instances (preview: the compiled server) on one PostgreSQL, one Cognito stand-in and one SMTP
 * capture, as behind a load balancer: whatever one instance does, the other sees at its next request, limits are
 * counted once for both, and background work is done once. The stand-ins run in this process; both instances join
 * them (COGNITO_ENDPOINT, the pool's ids, SMTP_URL) and share its data directory (session secret, mailbox).
 * Always PostgreSQL (PGlite is one process's): TEST_DATABASE_URL's server, else a throwaway cluster.
 */
const DEVICE_LIMIT = 2;
const SIGN_IN_PER_ACCOUNT = DEVICE_LIMIT + 1;
const IMPORT_CONCURRENCY = 2;
const JOB_INTERVAL_MINUTES = 0.2;
const SIGNED_OUT_LOCATION = "/auth/sign-in/?to=my-profile";

const temp = makeTempDir("two-instances");
let postgresServer: Awaited<ReturnType<typeof startTestPostgres>>;
let ownDatabase: { url: string; drop(): Promise<void> } | undefined;
let databaseUrl = "";
let stack: StandIns;
let handle: DatabaseHandle;
let sdk: StandInSdk;
let env: Record<string, string>;
const servers: { a?: TestServer; b?: TestServer } = {};
let metricsPorts: { a: number; b: number };

async function startInstance(metricsPort: number): Promise<TestServer> {
  const started = await startServerProcess("preview", { ...env, METRICS_PORT: String(metricsPort) });
  return {
    process: started,
    standIn: stack.env.COGNITO_ENDPOINT!,
    standInPort: started.standInPort,
    origin: `http://localhost:${new URL(started.url).port}`,
  };
}

const a = () => servers.a!;
const b = () => servers.b!;

beforeAll(async () => {
  postgresServer = await startTestPostgres();
  if (!postgresServer) return;
  if (process.env.TEST_DATABASE_URL) ownDatabase = await createOwnDatabase(postgresServer.url, "two_instances");
  databaseUrl = ownDatabase?.url ?? postgresServer.url;
  // The instances' origins are localhost on their own ports: the pool's passkeys are for that host.
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin", appOrigin: "http://localhost" });
  sdk = await connectToStandIn(Number(new URL(stack.env.COGNITO_ENDPOINT!).port));
  env = {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    ...joinSettingsOf(stack),
    DATA_DIR: temp.dir,
    DATABASE_URL: databaseUrl,
    DEVICE_LIMIT: String(DEVICE_LIMIT),
    RATE_LIMIT_SIGN_IN_PER_ACCOUNT: String(SIGN_IN_PER_ACCOUNT),
    // Every sign-in of this file but the rate-limit test's comes from 127.0.0.1.
    RATE_LIMIT_SIGN_IN_PER_IP: "1000",
    // One trusted proxy: each attempt can be a client of its own, so only the per-account count is in play.
    TRUST_PROXY_HOPS: "1",
    // Every 12 s, each first run one interval after start: the purge test sees a few intervals within a minute, and
    // the instances' start-up difference (a few seconds) stays far from the turn's nine tenths of an interval.
    DIRECTORY_RECONCILE_INTERVAL_MINUTES: String(JOB_INTERVAL_MINUTES),
    PURGE_INTERVAL_MINUTES: String(JOB_INTERVAL_MINUTES),
    CSV_IMPORT_CREATIONS_PER_SECOND: "10",
    CSV_IMPORT_CONCURRENCY: String(IMPORT_CONCURRENCY),
    CSV_IMPORT_LEASE_SECONDS: "5",
  };
  metricsPorts = { a: await findFreePort(), b: await findFreePort() };
  [servers.a, servers.b] = await Promise.all([startInstance(metricsPorts.a), startInstance(metricsPorts.b)]);
  handle = openDatabase({ databaseUrl, dataDir: temp.dir });
}, SERVER_START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await Promise.all([servers.a?.process.stop(), servers.b?.process.stop()]);
  sdk?.destroy();
  await handle?.close();
  await stack?.stop();
  await ownDatabase?.drop();
  if (!ownDatabase) await postgresServer?.stop();
  temp.remove();
});

/** A client address of its own (documentation range), as the trusted proxy forwards it. */
const someIp = () => `2001:db8::${crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16)}`;

/** The member's live sessions (signed-in browsers), oldest first. */
async function liveSessionsOf(email: string) {
  const rows = await handle.db
    .select()
    .from(memberSessions)
    .where(
      and(eq(memberSessions.email, email), isNull(memberSessions.revokedAt), isNotNull(memberSessions.activatedAt)),
    );
  return rows.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
}

/** Whether the browser with this Cookie header is signed in, asked of one instance. */
async function isSignedInOn(server: TestServer, cookie: string): Promise<boolean> {
  const response = await get(server, "/my/profile/", cookie);
  if (response.status === 200) return true;
  expect([response.status, response.headers.get("Location")]).toEqual([302, SIGNED_OUT_LOCATION]);
  return false;
}

describe.skipIf(!process.env.TEST_DATABASE_URL && !localPostgresBin())("two instances as one", () => {
  test("the second instance joined the first's stand-ins: both banners name the same stand-in and SMTP capture", () => {
    for (const server of [a(), b()]) {
      expect(server.process.stdout()).toContain(`Cognito stand-in (AWS SDK endpoint): ${stack.env.COGNITO_ENDPOINT}`);
      expect(server.process.stdout()).toContain(`SMTP capture: ${stack.env.SMTP_URL}`);
      expect(server.process.stdout()).toMatch(/Metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
    }
  });

  test("a session made on A works on B, and a sign-out on B ends it on A at the next request", async () => {
    const member = await createTestMember(a().standInPort, "two-sign-out");
    const cookie = await signedIn(a(), member);
    expect(await isSignedInOn(b(), cookie)).toBe(true);
    expect((await post(b(), "/auth/sign-out/", {}, cookie)).status).toBe(302);
    expect(await isSignedInOn(a(), cookie)).toBe(false);
  });

  test("a device deactivated on B is signed out on A at its next request", async () => {
    const member = await createTestMember(a().standInPort, "two-device");
    const onA = await signedIn(a(), member);
    const onB = await signedIn(b(), member);
    const [first] = await liveSessionsOf(member.email);
    const deactivated = await post(b(), "/my/devices/", { intent: "deactivate", device: first!.id }, onB);
    expect(deactivated.status).toBe(302);
    expect(await isSignedInOn(a(), onA)).toBe(false);
    expect(await isSignedInOn(a(), onB)).toBe(true);
  });

  test("a staff disable on B (the admin API) ends the member's session on A at the next request", async () => {
    const member = await createTestMember(a().standInPort, "two-disable");
    const cookie = await signedIn(a(), member);
    const [session] = await liveSessionsOf(member.email);
    // The authenticator app turned on through A's pages, the admin API called on B.
    const admin = await createApiStaff(a().process, "two-disable");
    const token = (await staffTokensFor(sdk, admin)).accessToken;
    const disabled = await fetch(`${b().process.url}/api/admin/users/${session!.sub}/disable`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(disabled.status).toBe(200);
    expect(await isSignedInOn(a(), cookie)).toBe(false);
  });

  test("a password's rate limit is exact when attempts alternate between A and B at once", async () => {
    const member = await createTestMember(a().standInPort, "two-limit");
    const attempts = 10;
    const statuses = await Promise.all(
      Array.from({ length: attempts }, async (_, index) => {
        const server = index % 2 === 0 ? a() : b();
        const response = await fetch(`${server.process.url}/auth/sign-in/`, {
          method: "POST",
          redirect: "manual",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            "Sec-Fetch-Site": "same-origin",
            "X-Forwarded-For": someIp(),
          },
          body: new URLSearchParams({ intent: "sign-in", email: member.email, password: "not-the-password" }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 400)).toHaveLength(SIGN_IN_PER_ACCOUNT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(attempts - SIGN_IN_PER_ACCOUNT);
  });

  test("the device limit is exact when new browsers sign in on A and B at once", async () => {
    const member = await createTestMember(a().standInPort, "two-devices");
    const results = await Promise.all(
      // As many as the account's sign-in limit lets through (every attempt counts), one more than the device limit.
      Array.from({ length: SIGN_IN_PER_ACCOUNT }, (_, index) => signIn(index % 2 === 0 ? a() : b(), member)),
    );
    // Every browser got an answer (signed in, or the device-limit step), none an error.
    expect(results.map(({ response }) => response.status)).toEqual(results.map(() => 302));
    expect(results.filter(({ cookie }) => sessionPair(cookie) !== "")).toHaveLength(DEVICE_LIMIT);
    expect(await liveSessionsOf(member.email)).toHaveLength(DEVICE_LIMIT);
  });

  test("sign-in alerts queued on both instances are each mailed once", async () => {
    const members = await Promise.all([0, 1, 2, 3].map((index) => createTestMember(a().standInPort, `alert${index}`)));
    // The first sign-in ever sends no alert; a second browser does. First browser on one instance, second on the other.
    await Promise.all(members.map((member, index) => signedIn(index % 2 === 0 ? a() : b(), member)));
    await Promise.all(members.map((member, index) => signedIn(index % 2 === 0 ? b() : a(), member)));
    const emails = members.map((member) => member.email);
    const mailbox = mailboxDirectory(temp.dir);
    const alerts = async () =>
      (await handle.db.select().from(mailOutbox)).filter((row) => emails.includes(row.recipient));
    await expect.poll(async () => (await alerts()).filter((row) => row.sentAt !== null).length).toBe(emails.length);
    // Every alert claimed once: no worker of either instance took another's mail.
    expect((await alerts()).map((row) => [row.kind, row.attempts])).toEqual(emails.map(() => ["signInAlert", 1]));
    expect([...(await mailboxCountsTo(mailbox, emails)).values()]).toEqual([1, 1, 1, 1]);
  });

  test("the purge and the directory reconcile each run once an interval across both instances", async () => {
    // Past its retention: the next purge, whichever instance runs it, deletes it.
    const tokenHash = crypto.randomUUID();
    await handle.db.insert(emailChangeTokens).values({
      tokenHash,
      sub: crypto.randomUUID(),
      oldEmail: "old@two-instances.example.jp",
      newEmail: "new@two-instances.example.jp",
      expiresAt: new Date(Date.now() - (EMAIL_CHANGE_TOKEN_RETENTION_DAYS + 1) * 24 * 60 * 60 * 1000),
    });
    const ticks = async (metricsPort: number, job: "purge" | "reconcile") => {
      const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const runs = [...body.matchAll(new RegExp(`^job_runs_total\\{job="${job}",outcome="([^"]+)"\\} (\\d+)$`, "gm"))];
      const count = (skipped: boolean) =>
        runs.filter(([, outcome]) => (outcome === "not-due") === skipped).reduce((sum, [, , n]) => sum + Number(n), 0);
      return { ran: count(false), notDue: count(true) };
    };
    // Both instances tick each job once an interval, each at its own offset: compare them when both have ticked the
    // same number of times.
    type Ticks = Awaited<ReturnType<typeof ticks>>;
    const seen = {} as Record<"purge" | "reconcile", { a: Ticks; b: Ticks }>;
    const tokenLeft = async () =>
      (await handle.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.tokenHash, tokenHash))).length;
    await expect.poll(tokenLeft, { timeout: 60_000, interval: 500 }).toBe(0);
    await expect
      .poll(
        async () => {
          for (const job of ["purge", "reconcile"] as const) {
            seen[job] = { a: await ticks(metricsPorts.a, job), b: await ticks(metricsPorts.b, job) };
          }
          return Object.values(seen).every(({ a, b }) => {
            const [tickedA, tickedB] = [a.ran + a.notDue, b.ran + b.notDue];
            return tickedA >= 1 && tickedA === tickedB;
          });
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    for (const { a, b } of Object.values(seen)) {
      const intervals = a.ran + a.notDue;
      expect({ ran: a.ran + b.ran, notDue: a.notDue + b.notDue }, JSON.stringify(seen)).toEqual({
        ran: intervals,
        notDue: intervals,
      });
    }
  }, 150_000);

  test("B stops on SIGTERM handing its work over; an import started on A and A killed mid-job: B finishes it, each member once", async () => {
    // B's shutdown: drained, its jobs stopped, exit 0. It is started again below to take over A's job.
    expect(await b().process.stop("SIGTERM")).toBe(0);
    // The authenticator app turned on through A's pages, the admin API called on B.
    const admin = await createApiStaff(a().process, "two-import");
    const token = (await staffTokensFor(sdk, admin)).accessToken;
    const run = crypto.randomUUID().slice(0, 8);
    const emails = Array.from({ length: 12 }, (_, index) => `two-${run}-${index}@csv-import.example.jp`);
    const since = Date.now();
    const started = await fetch(`${a().process.url}/api/admin/csv-import/user-create?fileName=members.csv`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "text/csv" },
      body: importCsv(emails),
    });
    expect(started.status).toBe(202);
    const jobId = ((await started.json()) as { job: { id: string } }).job.id;
    const creations = async () =>
      (await getRequestLog(stack.env.COGNITO_ENDPOINT!)).filter(
        (request) => request.operation === "AdminCreateUser" && request.at >= since,
      ).length;

    // Some members created by A, then each of A's lanes held inside an AdminCreateUser call, and A killed.
    await expect.poll(creations, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    await setFault(stack.env.COGNITO_ENDPOINT!, { mode: "slow", delayMs: 600_000, operations: ["AdminCreateUser"] });
    await expect
      .poll(async () => (await getFault(stack.env.COGNITO_ENDPOINT!)).applied)
      .toBeGreaterThanOrEqual(IMPORT_CONCURRENCY);
    const killed = once(a().process.child, "exit");
    a().process.child.kill("SIGKILL");
    await killed;
    // The stand-in drops a held request once its client is gone: none of them creates a user later.
    await expect
      .poll(async () => {
        const fault = await getFault(stack.env.COGNITO_ENDPOINT!);
        return fault.dropped === fault.applied;
      })
      .toBe(true);
    await resetHarness(stack.env.COGNITO_ENDPOINT!);
    const held = await handle.db
      .select()
      .from(csvImportRows)
      .where(and(eq(csvImportRows.jobId, jobId), eq(csvImportRows.state, "creating")));
    expect(held.length).toBeGreaterThan(0);

    servers.b = await startInstance(metricsPorts.b);
    const jobState = async () =>
      (await handle.db.select().from(csvImportJobs).where(eq(csvImportJobs.id, jobId)))[0]?.state;
    await expect.poll(jobState, { timeout: 90_000, interval: 500 }).toBe("completed");

    const rows = await handle.db.select().from(csvImportRows).where(eq(csvImportRows.jobId, jobId));
    expect(rows.map((row) => row.state)).toEqual(emails.map(() => "created"));
    expect(new Set(rows.map((row) => row.sub)).size).toBe(emails.length);
    const attemptsAtKill = new Map(held.map((row) => [row.rowNumber, row.attempts]));
    for (const row of rows.filter((candidate) => attemptsAtKill.has(candidate.rowNumber))) {
      expect(row.attempts).toBeGreaterThan(attemptsAtKill.get(row.rowNumber)!);
    }
    // One invitation per member: nobody created or mailed twice.
    expect([...(await mailboxCountsTo(mailboxDirectory(temp.dir), emails)).values()]).toEqual(emails.map(() => 1));
  }, 240_000);
});
