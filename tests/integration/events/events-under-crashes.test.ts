import { randomInt } from "node:crypto";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { asc, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { accountEvents, memberProfiles, memberSessions } from "~db/schema";
import { DELIVERY_LEASE_MS } from "~/domain/events/event-delivery.server";
import type { StandIns } from "~/server/start-server";
import { localPostgresBin, startTestPostgres } from "../../support/postgres-server";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import type { TestServer } from "../../support/session-servers";
import { post, signedIn } from "../../support/session-http";
import {
  type CapturedSiblingDelivery,
  eventCaptureDirectory,
  listCapturedDeliveries,
} from "../../support/stand-ins/event-capture";
import { joinSettingsOf, startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { createOwnDatabase } from "../../support/test-database";
import { createTestMember } from "../../support/test-members";
import { makeTempDir } from "../../support/temp-dir";

/**
 * Issue 47's "nothing lost": two production-built instances on one PostgreSQL, one Cognito stand-in and the dev event
 * capture (which verifies each webhook with standardwebhooks and files it), 1,000 profile saves over HTTP by a
 * handful of signed-in members on both instances, while the test SIGKILLs an instance at random points and starts it
 * again. Each save sets the organization to a value of its own, so every event names the change it announces.
 * Afterwards, once the deliveries settle: every save that answered success has its event, each member's stored
 * profile is their last event's, no event names a change that was not made or names one twice, and every event
 * reached the sibling (some more than once, with the same webhook-id) and nothing else did.
 * Always PostgreSQL (PGlite is one process's): TEST_DATABASE_URL's server, else a throwaway cluster; not a *.db test,
 * so CI's PostgreSQL pass does not run it a second time.
 */
const CHANGES = 1_000;
const MEMBERS = 8;
const KILLS = 4;
/** Kills land between these numbers of answered saves, so each restart is done well before the saves end. */
const KILL_WINDOW = { from: 40, to: 550 };
/** How long a kill waits for a save in flight on its instance. */
const IN_FLIGHT_WAIT_MS = 2_000;
/** The service that hears every member.updated; the others subscribe to an event this run never makes. */
const LISTENING_SERVICE = "data";
const changeValue = (change: number) => `change-${change}`;

const temp = makeTempDir("events-under-crashes");
let postgresServer: Awaited<ReturnType<typeof startTestPostgres>>;
let ownDatabase: { url: string; drop(): Promise<void> } | undefined;
let stack: StandIns;
let handle: DatabaseHandle;
let env: Record<string, string>;
const instances: (TestServer | null)[] = [null, null];

async function startInstance(): Promise<TestServer> {
  const started = await startServerProcess("preview", env);
  return {
    process: started,
    standIn: stack.env.COGNITO_ENDPOINT!,
    standInPort: started.standInPort,
    origin: `http://localhost:${new URL(started.url).port}`,
  };
}

beforeAll(async () => {
  postgresServer = await startTestPostgres();
  if (!postgresServer) return;
  if (process.env.TEST_DATABASE_URL) ownDatabase = await createOwnDatabase(postgresServer.url, "events_under_crashes");
  const databaseUrl = ownDatabase?.url ?? postgresServer.url;
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin", appOrigin: "http://localhost" });
  env = {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    ...joinSettingsOf(stack),
    // The same data directory: the instances share the session secret and the event capture's URL and secrets.
    DATA_DIR: temp.dir,
    DATABASE_URL: databaseUrl,
    // A thousand saves by a few members from one address are this test's load, not an abuse to limit.
    RATE_LIMIT_PROFILE_UPDATE_PER_MEMBER: String(CHANGES),
    RATE_LIMIT_PROFILE_UPDATE_PER_IP: String(CHANGES),
    // One sibling hears the saves: the capture verifies and files a thousand deliveries, not four thousand.
    SERVICE_WEBHOOK_EVENTS_COMPE: "member.deleted",
    SERVICE_WEBHOOK_EVENTS_ONLINE: "member.deleted",
    SERVICE_WEBHOOK_EVENTS_SHOP: "member.deleted",
  };
  [instances[0], instances[1]] = await Promise.all([startInstance(), startInstance()]);
  handle = openDatabase({ databaseUrl, dataDir: temp.dir });
}, SERVER_START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance?.process.stop()));
  await handle?.close();
  await stack?.stop();
  await ownDatabase?.drop();
  if (!ownDatabase) await postgresServer?.stop();
  temp.remove();
});

const PROFILE_FORM = {
  familyName: "Tanaka",
  givenName: "Hanako",
  birthYear: "1990",
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  preferredLanguage: "ja",
};

/**
 * Saves the profiles: change n is member n % MEMBERS's, each member's saves one after another (as one person's
 * clicks), every member at once, each save posted to whichever instance is up (chosen at random). A save that gets
 * no answer (its instance was killed) is not repeated: the member goes on with the next change. Meanwhile `onAnswer`
 * hears how many saves have been answered, and can ask how many are in flight on an instance. Answers which changes
 * were answered with success, and how many were cut.
 */
async function saveProfilesWhileKilling(
  cookies: string[],
  onAnswer: (answered: number, savesInFlightOn: (server: TestServer) => number) => Promise<void>,
) {
  const succeeded = new Set<number>();
  const inFlight = new Map<TestServer, number>();
  const savesInFlightOn = (server: TestServer) => inFlight.get(server) ?? 0;
  let answered = 0;
  let cut = 0;
  const liveInstance = async (): Promise<TestServer> => {
    for (;;) {
      const live = instances.filter((instance): instance is TestServer => instance !== null);
      if (live.length > 0) return live[randomInt(live.length)]!;
      await sleep(50);
    }
  };
  const saveAll = async (member: number) => {
    for (let change = member; change < CHANGES; change += MEMBERS) {
      const server = await liveInstance();
      inFlight.set(server, savesInFlightOn(server) + 1);
      try {
        const response = await post(
          server,
          "/my/profile/edit/",
          { ...PROFILE_FORM, organization: changeValue(change) },
          cookies[member],
        );
        await response.arrayBuffer();
        if (response.status === 302 && response.headers.get("Location") === "/my/profile/") succeeded.add(change);
        else throw new Error(`change ${change} answered ${response.status} ${response.headers.get("Location")}`);
      } catch (error) {
        // Only a connection cut by a kill is expected; any answer but success is a failure of the test.
        if (!(error instanceof TypeError)) throw error;
        cut += 1;
      } finally {
        inFlight.set(server, savesInFlightOn(server) - 1);
      }
      answered += 1;
      await onAnswer(answered, savesInFlightOn);
    }
  };
  await Promise.all(Array.from({ length: MEMBERS }, (_, member) => saveAll(member)));
  return { succeeded, cut };
}

/** The capture's webhook deliveries to the listening service, oldest first. */
async function capturedWebhooks(): Promise<CapturedSiblingDelivery[]> {
  const all = await listCapturedDeliveries(eventCaptureDirectory(temp.dir), Number.POSITIVE_INFINITY);
  return all.filter((delivery) => delivery.service === LISTENING_SERVICE && delivery.channel === "webhook").reverse();
}

describe.skipIf(!process.env.TEST_DATABASE_URL && !localPostgresBin())("account events under SIGKILL", () => {
  test(`${CHANGES} profile saves on two instances, ${KILLS} killed with SIGKILL and restarted: every change that took effect has one event, delivered; none other`, async () => {
    const members = await Promise.all(
      Array.from({ length: MEMBERS }, (_, index) => createTestMember(instances[0]!.standInPort, `crash${index}`)),
    );
    const cookies = await Promise.all(members.map((member, index) => signedIn(instances[index % 2]!, member)));
    const sessions = await handle.db
      .select({ sub: memberSessions.sub, email: memberSessions.email })
      .from(memberSessions)
      .where(
        inArray(
          memberSessions.email,
          members.map((member) => member.email),
        ),
      );
    const subOf = new Map(sessions.map((session) => [session.email, session.sub]));
    const subs = members.map((member) => subOf.get(member.email)!);

    const killPoints = Array.from({ length: KILLS }, () => randomInt(KILL_WINDOW.from, KILL_WINDOW.to)).sort(
      (x, y) => x - y,
    );
    const restarts: Promise<void>[] = [];
    let killed = 0;
    let killing = false;
    const { succeeded, cut } = await saveProfilesWhileKilling(cookies, async (answered, savesInFlightOn) => {
      // One kill at a time, and never of the last instance up: the other serves while this one is down.
      if (killing || killed === KILLS || answered < killPoints[killed]! || instances.includes(null)) return;
      killing = true;
      killed += 1;
      const index = randomInt(instances.length);
      const victim = instances[index]!;
      // A random moment inside whatever the instance is doing (commits, deliveries), with a save in flight on it
      // (awaited a while at most: near the end the other members may have no save left to send).
      await sleep(randomInt(0, 150));
      const inFlightBy = Date.now() + IN_FLIGHT_WAIT_MS;
      while (savesInFlightOn(victim) === 0 && Date.now() < inFlightBy) await sleep(1);
      const exited = once(victim.process.child, "exit");
      victim.process.child.kill("SIGKILL");
      instances[index] = null;
      killing = false;
      const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect(signal).toBe("SIGKILL");
      await victim.process.stop();
      restarts.push(startInstance().then((started) => void (instances[index] = started)));
    });
    await Promise.all(restarts);
    expect(killed).toBe(KILLS);
    // The run did what it is for: saves were in flight when instances died.
    expect(cut).toBeGreaterThan(0);

    const events = await handle.db
      .select()
      .from(accountEvents)
      .where(inArray(accountEvents.sub, subs))
      .orderBy(asc(accountEvents.sub), asc(accountEvents.memberSequence));
    const updates = events.filter((event) => event.type === "member.updated");
    const organizationOf = (event: (typeof events)[number]) =>
      (event.data as { changed: { organization?: string } }).changed.organization;
    const changeOf = new Map(
      Array.from({ length: CHANGES }, (_, change) => [changeValue(change), { change, sub: subs[change % MEMBERS] }]),
    );

    // Every event names a change the test attempted, of its own member, and no change has two events.
    for (const event of updates) expect(changeOf.get(organizationOf(event) ?? "")?.sub, event.id).toBe(event.sub);
    const announced = updates.map((event) => changeOf.get(organizationOf(event)!)!.change);
    expect(new Set(announced).size).toBe(announced.length);
    // Every save that answered success has its event.
    expect([...succeeded].filter((change) => !announced.includes(change))).toEqual([]);
    // Each member's events are numbered 1, 2, 3…, and the stored profile is their last event's value.
    const profiles = await handle.db
      .select({ sub: memberProfiles.sub, organization: memberProfiles.organization })
      .from(memberProfiles)
      .where(inArray(memberProfiles.sub, subs));
    for (const sub of subs) {
      const own = events.filter((event) => event.sub === sub);
      expect(own.map((event) => event.memberSequence)).toEqual(own.map((_, index) => index + 1));
      const last = updates.filter((event) => event.sub === sub).at(-1);
      expect(profiles.find((profile) => profile.sub === sub)?.organization).toBe(organizationOf(last!));
    }

    // Once the deliveries settle (a killed instance's sends in flight are free again after their lease): every
    // event reached the sibling, verified, and the sibling got no id that is not an event.
    const eventIds = new Set(events.map((event) => event.id));
    await expect
      .poll(
        async () => {
          const delivered = new Set((await capturedWebhooks()).map((delivery) => delivery.eventId));
          return [...eventIds].filter((id) => !delivered.has(id)).length;
        },
        { timeout: DELIVERY_LEASE_MS + 60_000, interval: 1_000 },
      )
      .toBe(0);
    const webhooks = await capturedWebhooks();
    expect(webhooks.filter((delivery) => !eventIds.has(delivery.eventId ?? ""))).toEqual([]);
    expect(webhooks.filter((delivery) => delivery.verdict !== "verified")).toEqual([]);
    // The delivered body is the event as recorded, whichever instance sent it and however often.
    const eventById = new Map(events.map((event) => [event.id, event]));
    for (const delivery of webhooks) {
      const body = JSON.parse(delivery.body) as { id: string; sub: string; sequence: number; data: unknown };
      const event = eventById.get(delivery.eventId!)!;
      expect(body).toMatchObject({ id: event.id, sub: event.sub, sequence: event.memberSequence, data: event.data });
    }
    console.log(
      `${CHANGES} saves: ${succeeded.size} answered success, ${cut} cut by ${KILLS} kills; ` +
        `${updates.length} member.updated events; ${webhooks.length} webhooks for ${eventIds.size} events`,
    );
  }, 420_000);
});
