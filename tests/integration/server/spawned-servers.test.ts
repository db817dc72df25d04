import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { makeTempDir } from "../../support/temp-dir";

/**
 * The servers that the tests and the benchmarks start (tests/support/node-child.ts, used by server-process.ts and
 * tests/bench/bench-support.ts) end with the process that started them, even one killed with SIGKILL that runs no
 * cleanup: a killed test runner leaves no server holding its ports, data directory and database connections. They
 * stop as on SIGTERM, so a server closes its stand-ins too.
 */
const temp = makeTempDir("spawned-servers");
const NODE_CHILD = new URL("../../support/node-child.ts", import.meta.url).href;
let server: number | undefined;

afterAll(() => {
  // Only when the test failed: the server outlived its parent.
  if (server !== undefined && isRunning(server)) process.kill(server, "SIGKILL");
  temp.remove();
});

/** Whether a process runs; an ended one that whoever adopted it has not reaped yet (a zombie) does not. Linux. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

test("a server started through node-child.ts stops as on SIGTERM when its parent is killed with SIGKILL", async () => {
  const startedMark = path.join(temp.dir, "started");
  const stoppedMark = path.join(temp.dir, "stopped-by-sigterm");
  const script = path.join(temp.dir, "server.mjs");
  writeFileSync(
    script,
    `import { writeFileSync } from "node:fs";
     process.on("SIGTERM", () => { writeFileSync(${JSON.stringify(stoppedMark)}, ""); process.exit(0); });
     writeFileSync(${JSON.stringify(startedMark)}, "");
     setInterval(() => {}, 60_000);`,
  );
  // A stand-in for the test runner: starts the server and stays, until it is killed.
  const runner = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "--eval",
      `const { spawnNodeScript } = await import(${JSON.stringify(NODE_CHILD)});
       const child = spawnNodeScript(${JSON.stringify(script)}, [], { stdio: ["ignore", "ignore", "ignore"] });
       console.log(child.pid);
       setInterval(() => {}, 60_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [pidLine] = (await once(runner.stdout!, "data")) as [Buffer];
  server = Number(pidLine.toString().trim());
  // Running, its SIGTERM handler in place.
  await expect.poll(() => existsSync(startedMark), { timeout: 60_000 }).toBe(true);
  expect(isRunning(server)).toBe(true);

  runner.kill("SIGKILL");
  await once(runner, "exit");
  await expect.poll(() => isRunning(server!), { timeout: 60_000 }).toBe(false);
  expect(existsSync(stoppedMark)).toBe(true);
}, 90_000);
