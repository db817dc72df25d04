import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { spawnNodeScript } from "./node-child";
import { findFreePort } from "./stand-ins/cognito-stand-in";
import { seedPgliteDataDir } from "./pglite-template";
import { makeTempDir } from "./temp-dir";

export interface ServerProcess {
  url: string;
  /** The embedded Cognito stand-in's port (dev and preview), as the server reports it. */
  standInPort: number;
  child: ChildProcess;
  stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Generous: CI runs on 2 cores that may be busy with other test processes, where a start can take over a minute. */
export const SERVER_START_TIMEOUT_MS = 180_000;
/** A port chosen for the server can be taken by another process before the server binds it: then try again. */
const START_ATTEMPTS = 3;

/**
 * Starts the real server in a mode, on a free port with a fresh data directory: the dev entry on the stand-ins,
 * which runs the source in dev and the compiled production server (`npm run build`) in preview. The server stops when
 * the test process ends, however it ends (node-child.ts).
 */
export async function startServerProcess(
  mode: "dev" | "preview",
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(mode, env);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === START_ATTEMPTS) throw error;
    }
  }
}

class PortTakenError extends Error {}

/** The banner line naming the embedded stand-in (dev and preview always have one), printed once listening. */
const STAND_IN_LINE = /Cognito stand-in \(AWS SDK endpoint\): http:\/\/127\.0\.0\.1:(\d+)/;

async function startOnce(mode: "dev" | "preview", env: Record<string, string>): Promise<ServerProcess> {
  const port = await findFreePort();
  const temp = makeTempDir("server");
  if (!(env.DATABASE_URL ?? process.env.DATABASE_URL)) seedPgliteDataDir(temp.dir);
  const child = spawnNodeScript("app/server/dev-entry.ts", [`--mode=${mode}`], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: temp.dir,
      APP_ORIGIN: `http://localhost:${port}`,
      // No scheduled directory reconcile: its Cognito calls would land in tests that count calls or fault the next
      // one. A test that needs it sets its own interval.
      DIRECTORY_RECONCILE_INTERVAL_MINUTES: "0",
      // No load balancer to tell before stopping: a stop drains nothing, and does not wait the production default's
      // seconds after every test file. The shutdown tests set their own.
      SHUTDOWN_DRAIN_SECONDS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Ready when this child says so: its banner comes after it bound the port. A health check alone could be
  // answered by another server that took the port first.
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  let standInPort = 0;
  while (!(standInPort = Number(STAND_IN_LINE.exec(output)?.[1] ?? 0))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      temp.remove();
      if (child.exitCode === null) child.kill("SIGKILL");
      const failure = `The server did not start:\n${output}`;
      throw output.includes("EADDRINUSE") ? new PortTakenError(failure) : new Error(failure);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    standInPort,
    child,
    stdout: () => output,
    async stop(signal = "SIGTERM") {
      // A process that already ended (also by a signal, which leaves exitCode null) is not waited for.
      const running = child.exitCode === null && child.signalCode === null;
      const exited = running ? once(child, "exit") : Promise.resolve([child.exitCode]);
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      temp.remove();
      return code;
    },
  };
}
