/**
 * Restart under load (`npx tsx tests/bench/restart-under-load.ts`; BENCH_SECONDS=n sets how long the load runs before
 * and after the restart, default 10; BENCH_CONNECTIONS, default 10). Two production-built instances (preview) on one
 * PostgreSQL (TEST_DATABASE_URL's server in a database of its own, else a throwaway cluster), one Cognito stand-in
 * and one mail capture, behind a client-side load balancer: each request goes to the next instance in rotation, and
 * an instance is in rotation while its `/readyz/` answers 200 (checked every READINESS_CHECK_MS, as a load balancer's
 * health check would). Connections are kept alive. The load is anonymous pages and a signed-in member's profile.
 * Mid-run, instance A gets SIGTERM and, once it has exited, is started again; B serves throughout.
 *
 * It prints every request that failed (a 5xx or a broken connection) and the instances' answers by status: the target
 * is no failed request. It is a report: it exits non-zero only when it cannot measure.
 */
import { once } from "node:events";
import { startTestPostgres } from "../support/postgres-server";
import { type ServerProcess, startServerProcess } from "../support/server-process";
import { startEmbeddedStack } from "../support/stand-ins/embedded-stack";
import { createOwnDatabase } from "../support/test-database";
import { createTestMember } from "../support/test-members";
import { makeTempDir } from "../support/temp-dir";
import { ensureAppBuild, printTable, runBenchmarkMain } from "./bench-support";

const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const READINESS_CHECK_MS = 250;
const PAGES = ["/", "/en/", "/my/profile/"];

interface Instance {
  name: string;
  server: ServerProcess;
  inRotation: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await runBenchmarkMain(async () => {
  await ensureAppBuild();
  const temp = makeTempDir("restart-under-load");
  const postgres = await startTestPostgres();
  if (!postgres) throw new Error("No PostgreSQL: set TEST_DATABASE_URL or install PostgreSQL's server binaries");
  const own = process.env.TEST_DATABASE_URL ? await createOwnDatabase(postgres.url, "restart_under_load") : undefined;
  const stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin", appOrigin: "http://localhost" });
  const instances: Instance[] = [];
  try {
    const env = {
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      ...stack.env,
      DATA_DIR: temp.dir,
      DATABASE_URL: own?.url ?? postgres.url,
      RATE_LIMIT_SIGN_IN_PER_IP: "1000",
    };
    const start = (name: string) => startServerProcess("preview", env).then((server) => ({ name, server }));
    for (const started of await Promise.all([start("A"), start("B")]))
      instances.push({ ...started, inRotation: false });
    const standInPort = Number(new URL(stack.env.COGNITO_ENDPOINT!).port);
    const member = await createTestMember(standInPort, "restart");
    const signIn = await fetch(`${instances[0]!.server.url}/auth/sign-in/`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams({ intent: "sign-in", ...member }),
    });
    const cookie = signIn.headers
      .getSetCookie()
      .map((value) => value.split(";")[0])
      .join("; ");
    if (signIn.status !== 302 || !cookie.includes("id_session=")) throw new Error("the member could not sign in");

    let running = true;
    const checks = (async () => {
      while (running) {
        await Promise.all(
          instances.map(async (instance) => {
            try {
              const readiness = await fetch(`${instance.server.url}/readyz/`);
              await readiness.arrayBuffer();
              instance.inRotation = readiness.status === 200;
            } catch {
              instance.inRotation = false;
            }
          }),
        );
        await sleep(READINESS_CHECK_MS);
      }
    })();
    while (!instances.every((instance) => instance.inRotation)) await sleep(100);

    const statuses = new Map<string, number>();
    const failures: string[] = [];
    let total = 0;
    let next = 0;
    const worker = async () => {
      while (running) {
        const inRotation = instances.filter((instance) => instance.inRotation);
        if (inRotation.length === 0) {
          await sleep(20);
          continue;
        }
        const instance = inRotation[next++ % inRotation.length]!;
        const page = PAGES[total % PAGES.length]!;
        total++;
        try {
          const response = await fetch(`${instance.server.url}${page}`, {
            redirect: "manual",
            headers: { "Accept-Language": "ja", Cookie: cookie },
          });
          await response.arrayBuffer();
          const key = `${instance.name} ${response.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (response.status >= 500) failures.push(`${instance.name} ${page}: ${response.status}`);
        } catch (error) {
          failures.push(`${instance.name} ${page}: ${(error as Error).cause ?? error}`);
        }
      }
    };
    const startedAt = Date.now();
    const load = Promise.all(Array.from({ length: CONNECTIONS }, worker));

    await sleep(LOAD_SECONDS * 1000);
    const a = instances[0]!;
    const termAt = Date.now();
    const exited = once(a.server.child, "exit");
    a.server.child.kill("SIGTERM");
    const [exitCode] = (await exited) as [number | null];
    const exitedAt = Date.now();
    a.server = (await start("A")).server;
    while (!a.inRotation) await sleep(100);
    const backAt = Date.now();
    await sleep(LOAD_SECONDS * 1000);
    running = false;
    await Promise.all([load, checks]);

    console.log(
      `\nRestart under load: ${CONNECTIONS} connections, ${total} requests in ${((Date.now() - startedAt) / 1000).toFixed(0)} s; ` +
        `A: SIGTERM → exit ${exitCode} after ${((exitedAt - termAt) / 1000).toFixed(1)} s, ` +
        `back in rotation ${((backAt - exitedAt) / 1000).toFixed(1)} s later\n`,
    );
    printTable(
      ["Instance and status", "Answers"],
      [...statuses].sort().map(([key, count]) => [key, String(count)]),
    );
    console.log(`\nFailed requests: ${failures.length}`);
    for (const failure of failures.slice(0, 20)) console.log(`  ${failure}`);
  } finally {
    await Promise.all(instances.map((instance) => instance.server.stop()));
    await stack.stop();
    await own?.drop();
    if (!own) await postgres.stop();
    temp.remove();
  }
});
