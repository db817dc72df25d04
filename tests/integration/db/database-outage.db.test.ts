import { afterAll, beforeAll, expect, test } from "vitest";
import { cookieHeader } from "../../support/cookie-jar";
import { startCuttableProxy, startTestPostgres } from "../../support/postgres-server";
import { createOwnDatabase } from "../../support/test-database";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { postForm } from "../../support/session-http";
import { createTestMember } from "../../support/test-members";

/**
 * A database outage: the production build on a real PostgreSQL reached through a proxy the test
 * cuts and restores. While the database is down, pages that need it answer the 503 page inside the site
 * frame (not a 500, no stack trace); once it is back, the same requests are served again without a restart.
 * Needs a PostgreSQL: TEST_DATABASE_URL (.ci/run's second pass over the *.db.test.ts files) or the local server
 * binaries (a throwaway cluster); skipped on a machine with neither.
 */
const postgres = await startTestPostgres();
// On TEST_DATABASE_URL's server, a database of the file's own: the server's jobs (the mail outbox, imports, the
// purge) take whatever they find, and would work the other files' rows on the shared database.
let ownDatabase: Awaited<ReturnType<typeof createOwnDatabase>> | undefined;
let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
let server: ServerProcess;
let origin: string;

const SERVICE_UNAVAILABLE_JA = "ただいまサービスをご利用いただけません";
const SERVICE_UNAVAILABLE_EN = "Service unavailable";

beforeAll(async () => {
  if (!postgres) return;
  if (process.env.TEST_DATABASE_URL) ownDatabase = await createOwnDatabase(postgres.url, "database_outage");
  const databaseUrl = ownDatabase?.url ?? postgres.url;
  const target = new URL(databaseUrl);
  proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port) });
  const viaProxy = new URL(databaseUrl);
  viaProxy.port = String(proxy.port);
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    DATABASE_URL: viaProxy.toString(),
  });
  origin = `http://localhost:${new URL(server.url).port}`;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await proxy?.stop();
  await ownDatabase?.drop();
  await postgres?.stop();
});

const headingIn = (html: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];

function get(path: string, cookie = "") {
  return fetch(`${origin}${path}`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
}

function post(path: string, fields: Record<string, string>, cookie = "") {
  return postForm(`${origin}${path}`, fields, { cookie, headers: { Origin: origin } });
}

function expectServiceUnavailablePage(html: string, title: string) {
  expect(headingIn(html)).toBe(title);
  // Inside the site frame (header and footer), with no stack trace or driver error.
  expect(html).toMatch(/<header[^>]*class="[^"]*site-header/);
  expect(html).toMatch(/<footer/);
  expect(html).not.toMatch(/\n\s+at\s|ECONNREFUSED|CONNECTION_|DrizzleQueryError|postgres/i);
}

test.skipIf(!postgres)(
  "database down: signed-in pages and form posts answer the 503 page; back up: they work again",
  { timeout: 120_000 },
  async () => {
    const member = await createTestMember(server.standInPort, "db-outage");
    const signIn = await post("/auth/sign-in/", { intent: "sign-in", ...member });
    expect(signIn.status).toBe(302);
    const cookie = cookieHeader(signIn);
    expect((await get("/my/profile/", cookie)).status).toBe(200);

    await proxy.down();
    const profile = await get("/my/profile/", cookie);
    expect(profile.status).toBe(503);
    expectServiceUnavailablePage(await profile.text(), SERVICE_UNAVAILABLE_JA);
    const english = await get("/en/my/devices/", cookie);
    expect(english.status).toBe(503);
    expectServiceUnavailablePage(await english.text(), SERVICE_UNAVAILABLE_EN);
    // A form post whose action needs the database (the sign-in's rate limit and session), without a session cookie.
    const anonymousPost = await post("/auth/sign-in/", { intent: "sign-in", ...member });
    expect(anonymousPost.status).toBe(503);
    expectServiceUnavailablePage(await anonymousPost.text(), SERVICE_UNAVAILABLE_JA);
    // The session was not ended for it: the database being down says nothing about the member.
    expect(profile.headers.getSetCookie().some((value) => value.startsWith("id_session="))).toBe(false);

    await proxy.up();
    const recovered = await get("/my/profile/", cookie);
    expect(recovered.status).toBe(200);
    expect(await recovered.text()).toContain(member.email);
  },
);
