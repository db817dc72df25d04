import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type StandIns, fillUnsetSettings } from "~/server/start-server";
import { localPostgresBin, startTestPostgres } from "../../support/postgres-server";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import type { TestServer } from "../../support/session-servers";
import { get, signedIn } from "../../support/session-http";
import { JOIN_SETTINGS, joinRunningStack, startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { createOwnDatabase } from "../../support/test-database";
import { createTestMember } from "../../support/test-members";
import { makeTempDir } from "../../support/temp-dir";

/**
 * In dev and preview the development stand-ins fill in the settings production gets from outside; whatever the
 * environment sets is used instead. Two preview instances (the compiled server) joined to one stand-in and one
 * PostgreSQL, each with a data directory of its own (so each generated a session secret of its own), are given one
 * SESSION_SECRETS by the operator: a session made on one is signed in on the other.
 */
const OPERATOR_SECRET = "an-operator's-secret-of-at-least-32-characters";

const temp = makeTempDir("operator-settings");
const dataDirs = { a: makeTempDir("operator-settings-a"), b: makeTempDir("operator-settings-b") };
let stack: StandIns;
let joinSettings: Record<string, string>;
let postgresServer: Awaited<ReturnType<typeof startTestPostgres>> | undefined;
let ownDatabase: { url: string; drop(): Promise<void> } | undefined;
const servers: { a?: TestServer; b?: TestServer } = {};

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin", appOrigin: "http://localhost" });
  joinSettings = Object.fromEntries(JOIN_SETTINGS.map((name) => [name, stack.env[name]!]));
}, SERVER_START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([servers.a?.process.stop(), servers.b?.process.stop()]);
  await stack?.stop();
  await ownDatabase?.drop();
  if (!ownDatabase) await postgresServer?.stop();
  for (const dir of [temp, dataDirs.a, dataDirs.b]) dir.remove();
});

test("every setting the stand-ins fill in, started or joined, keeps the environment's value when it sets one", async () => {
  const joined = await joinRunningStack({ ...joinSettings, DATABASE_URL: "postgres://db.internal/app" }, temp.dir);
  if (!joined || "problems" in joined) throw new Error(`did not join: ${JSON.stringify(joined)}`);
  for (const filled of [stack.env, joined.env]) {
    expect(Object.keys(filled)).toContain("SESSION_SECRETS");
    for (const name of Object.keys(filled)) {
      const env: NodeJS.ProcessEnv = { [name]: "the operator's value" };
      fillUnsetSettings(env, filled);
      expect(env, name).toEqual({ ...filled, [name]: "the operator's value" });
      // An empty value is no setting (as in an env file's `NAME=`): the stand-in's is used.
      const empty: NodeJS.ProcessEnv = { [name]: "" };
      fillUnsetSettings(empty, filled);
      expect(empty, name).toEqual(filled);
    }
  }
});

async function startInstance(dataDir: string, databaseUrl: string): Promise<TestServer> {
  const started = await startServerProcess("preview", {
    ...joinSettings,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SESSION_SECRETS: OPERATOR_SECRET,
  });
  return {
    process: started,
    standIn: stack.env.COGNITO_ENDPOINT!,
    standInPort: started.standInPort,
    origin: `http://localhost:${new URL(started.url).port}`,
  };
}

describe.skipIf(!process.env.TEST_DATABASE_URL && !localPostgresBin())(
  "two instances given one SESSION_SECRETS",
  () => {
    beforeAll(async () => {
      postgresServer = await startTestPostgres();
      if (!postgresServer) throw new Error("no PostgreSQL to share");
      if (process.env.TEST_DATABASE_URL) ownDatabase = await createOwnDatabase(postgresServer.url, "operator_settings");
      const databaseUrl = ownDatabase?.url ?? postgresServer.url;
      [servers.a, servers.b] = await Promise.all([
        startInstance(dataDirs.a.dir, databaseUrl),
        startInstance(dataDirs.b.dir, databaseUrl),
      ]);
    }, SERVER_START_TIMEOUT_MS + 60_000);

    test("share sessions, though each data directory holds a secret of its own", async () => {
      const generated = [dataDirs.a.dir, dataDirs.b.dir].map((dir) =>
        readFileSync(path.join(dir, "session-secret"), "utf8").trim(),
      );
      expect(new Set([...generated, OPERATOR_SECRET]).size).toBe(3);

      const member = await createTestMember(servers.a!.standInPort, "operator-secret");
      const cookie = await signedIn(servers.a!, member);
      const onB = await get(servers.b!, "/my/profile/", cookie);
      expect(onB.status).toBe(200);
    });
  },
);
