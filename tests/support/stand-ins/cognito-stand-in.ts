import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  getRequestCounts,
  resetHarness,
  setFault,
  type FaultSettings,
  type FaultState,
  type RequestCounts,
} from "./stand-in/harness-client";

/** The stand-in harness's test switches (see stand-in/faults.ts), bound to one running stand-in. */
export interface StandInFaults {
  set(settings: FaultSettings): Promise<FaultState>;
  /** No fault, request counter at zero. */
  reset(): Promise<void>;
  requestCounts(): Promise<RequestCounts>;
}

export interface RunningStandIn {
  endpoint: string;
  faults: StandInFaults;
  stop(): Promise<void>;
}

/** Asks the kernel for a free loopback port. */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Generous: a loaded CI machine may take long to start a process; the hooks that wait for it allow 180 s.
const READY_TIMEOUT_MS = 150_000;

/**
 * Starts the Cognito stand-in (cognito-local behind the stand-in harness) as a child process on a loopback port
 * with its own data directory, and resolves once it answers. Its codes go to the dev mailbox.
 */
export async function startCognitoStandIn(options: {
  dataDir: string;
  mailboxDir: string;
  port?: number;
}): Promise<RunningStandIn> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./cognito-stand-in-process.ts", import.meta.url)), {
    execArgv: ["--import", "tsx"],
    env: {
      ...process.env,
      STANDIN_DATA_DIR: options.dataDir,
      STANDIN_MAILBOX_DIR: options.mailboxDir,
      STANDIN_PORT: String(options.port ?? 0),
      // cognito-local is built on the AWS SDK v2, whose end-of-support notice at every start concerns the stand-in's
      // own dependency, not the app (which uses v3).
      AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: "1",
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("The Cognito stand-in did not start in time")), READY_TIMEOUT_MS);
    child.once("message", (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`The Cognito stand-in exited during start-up (code ${code})`));
    });
  });
  const endpoint = `http://127.0.0.1:${await ready}`;
  return {
    endpoint,
    faults: {
      set: (settings) => setFault(endpoint, settings),
      reset: () => resetHarness(endpoint),
      requestCounts: () => getRequestCounts(endpoint),
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
