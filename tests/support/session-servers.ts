import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { MISSING_TEXT_LOG } from "~/i18n/use-translation";
import { type StandInSdk, connectToStandIn } from "./bearer-tokens";
import { type ServerProcess, startServerProcess } from "./server-process";
import { resetHarness } from "./stand-in-faults";

/** The production build in preview mode with its Cognito stand-in, as the session tests reach it over HTTP. */
export interface TestServer {
  process: ServerProcess;
  /** The stand-in's endpoint (harness and SDK). */
  standIn: string;
  standInPort: number;
  /** The app's own origin: APP_ORIGIN names localhost, and posts must come from it. */
  origin: string;
}

export const DEVICE_LIMIT = 2;
export const SHORT_TOKEN_TTL_S = 2;
/** The shared server: a device limit of two, Cognito's 60-minute access tokens. */
export const DEVICE_LIMIT_SERVER_ENV = { DEVICE_LIMIT: String(DEVICE_LIMIT) };
/** A server whose stand-in issues 2-second access tokens, for the refresh tests. */
export const SHORT_TOKENS_SERVER_ENV = { STANDIN_ACCESS_TOKEN_TTL_S: String(SHORT_TOKEN_TTL_S) };

async function startTestServer(env: Record<string, string>): Promise<TestServer> {
  const server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "silent", ...env });
  return {
    process: server,
    standIn: `http://127.0.0.1:${server.standInPort}`,
    standInPort: server.standInPort,
    origin: `http://localhost:${new URL(server.url).port}`,
  };
}

/** How long a started server may take to be ready: its first fetch of the pool's keys, on a loaded machine. */
const READY_TIMEOUT_MS = 60_000;

/**
 * Starts one server per entry together before the file's tests, resets the stand-ins' faults and counts after each
 * test, and stops the servers after the file. Each server costs about 10 s of CPU: start only those a file needs.
 * The returned object's entries are filled in once the servers are up.
 */
export function useTestServers<Name extends string>(
  envs: Record<Name, Record<string, string>>,
): Record<Name, TestServer> {
  const servers = {} as Record<Name, TestServer>;
  const names = Object.keys(envs) as Name[];

  beforeAll(async () => {
    const started = await Promise.allSettled(names.map((name) => startTestServer(envs[name])));
    const failed = started.find((result) => result.status === "rejected");
    if (failed) {
      await Promise.all(started.map((result) => (result.status === "fulfilled" ? result.value.process.stop() : null)));
      throw failed.reason;
    }
    names.forEach((name, index) => (servers[name] = (started[index] as PromiseFulfilledResult<TestServer>).value));
    // Readiness loads the pool's JWKS, which a process then keeps (cognito-jwks.server.ts):
    // from here on, the stand-in's request counts are the page views' own. Asked again until ready, as a load
    // balancer does: on a loaded machine the first fetch of the keys can outlast its 3 s time-out.
    for (const server of Object.values<TestServer>(servers)) await untilReady(server.process.url);
  });

  afterAll(async () => {
    for (const server of Object.values<TestServer>(servers)) {
      sdkClients.get(server)?.cognito.destroy();
      sdkClients.delete(server);
    }
    await Promise.all(Object.values<TestServer>(servers).map((server) => server.process.stop()));
  });

  afterEach(async () => {
    await Promise.all(Object.values<TestServer>(servers).map((server) => resetHarness(server.standIn)));
    // A page whose loaders forgot a text it shows renders without it and logs the key (app/i18n/use-translation.ts):
    // the test that viewed it fails here, with or without JavaScript.
    for (const server of Object.values<TestServer>(servers)) {
      expect(missingTextsSince(server), "texts a page looked up that its loaders did not send").toEqual([]);
    }
  });

  return servers;
}

/** How much of each server's output the missing-text check has read. */
const outputRead = new Map<TestServer, number>();

/** The missing texts ("namespace:path") a server logged since the last look. */
function missingTextsSince(server: TestServer): string[] {
  const output = server.process.stdout();
  const unread = output.slice(outputRead.get(server) ?? 0);
  outputRead.set(server, output.length);
  return unread
    .split(MISSING_TEXT_LOG)
    .slice(1)
    .map((after) => after.trim().split(/\s/)[0]!);
}

/** SDK clients on each server's stand-in, with the pool and app client ids. */
const sdkClients = new Map<TestServer, StandInSdk>();

/** An SDK client on this server's stand-in (as an administrator would use it), with its pool and app client. */
export async function sdk(server: TestServer): Promise<StandInSdk> {
  const known = sdkClients.get(server);
  if (known) return known;
  const created = await connectToStandIn(Number(new URL(server.standIn).port));
  sdkClients.set(server, created);
  return created;
}

/** Asks /readyz/ every second until it answers 200; fails after READY_TIMEOUT_MS with the last answer. */
async function untilReady(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = await fetch(`${url}/readyz/`).then(
      (response) => response.status,
      (error: unknown) => String(error),
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url}/readyz/ answered ${status} for ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(1_000);
  }
}
