import { type ChildProcess, type SpawnOptions, type StdioNull, type StdioPipe, spawn } from "node:child_process";

const EXIT_WITH_PARENT = new URL("./exit-with-parent.ts", import.meta.url).href;

/**
 * `node [nodeArgs] --import tsx <script> [args]` tied to this process: the child stops (as on SIGTERM) when this
 * process ends, even by SIGKILL (exit-with-parent.ts). The servers of the tests (server-process.ts,
 * identity-pool-check.test.ts) and of the benchmarks (tests/bench/bench-support.ts) start this way, and so do the CSV
 * import workers of import-jobs.db.test.ts. `tsx` is resolved from `cwd`.
 */
export function spawnNodeScript(
  script: string,
  args: string[],
  options: Omit<SpawnOptions, "stdio"> & {
    nodeArgs?: string[];
    stdio: [StdioNull | StdioPipe, StdioNull | StdioPipe, StdioNull | StdioPipe];
  },
): ChildProcess {
  const { nodeArgs = [], stdio, ...spawnOptions } = options;
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--import", "tsx", "--import", EXIT_WITH_PARENT, script, ...args],
    { ...spawnOptions, stdio: [...stdio, "ipc"] },
  );
  // The channel is only there to close when this process ends: it must not keep this process running.
  child.channel?.unref();
  return child;
}
