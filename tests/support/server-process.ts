import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { findFreePort } from "~/server/embedded/cognito-stand-in";
import { makeTempDir } from "./temp-dir";

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const START_TIMEOUT_MS = 60_000;

/** Starts the real server (`app/server/main.ts`) in a mode, on a free port with a fresh data directory. */
export async function startServerProcess(mode: "dev" | "preview", env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await findFreePort();
  const temp = makeTempDir("server");
  const child = spawn(process.execPath, ["--import", "tsx", "app/server/main.ts", `--mode=${mode}`], {
    env: { ...process.env, PORT: String(port), DATA_DIR: temp.dir, APP_ORIGIN: `http://localhost:${port}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await fetch(`${url}/healthz/`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      temp.remove();
      throw new Error(`The server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    child,
    stdout: () => output,
    async stop(signal = "SIGTERM") {
      const exited = child.exitCode === null ? once(child, "exit") : Promise.resolve([child.exitCode]);
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      temp.remove();
      return code;
    },
  };
}
