import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { findFreePort } from "../../support/stand-ins/cognito-stand-in";
import { makeTempDir } from "../../support/temp-dir";

/** Runs the compiled production server (`npm run build`) with these arguments and environment; collects how it ends. */
function startServer(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["build/http-server/main.js", ...args], {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", LOG_LEVEL: "silent", ...env },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // A server that started when it should have refused is stopped, so the test fails instead of hanging.
      if (output.includes("ready at")) child.kill("SIGTERM");
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

const startProduction = (env: Record<string, string>) => startServer(["--mode=production"], env);

/** Each test spawns the server: seconds on a quiet machine, far more on a loaded one. */
const SPAWN_TIMEOUT_MS = 60_000;

/** Every required variable set, pointing nowhere real: what is left to refuse is what a test changes. */
const COMPLETE = {
  APP_ORIGIN: "https://id.example.jp",
  SESSION_SECRETS: "x".repeat(40),
  DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
  COGNITO_REGION: "ap-northeast-1",
  COGNITO_USER_POOL_ID: "pool",
  COGNITO_CLIENT_ID: "client",
  COGNITO_STAFF_CLIENT_ID: "staff-client",
  COGNITO_SERVER_CLIENT_ID: "server-client",
  SMTP_URL: "smtp://127.0.0.1:25",
  TRUST_PROXY_HOPS: "1",
};

test(
  "npm start refuses to run without real configuration and names what is missing",
  async () => {
    const { code, output } = await startProduction({});
    expect(code).toBe(1);
    for (const variable of [
      "APP_ORIGIN",
      "SESSION_SECRETS",
      "DATABASE_URL",
      "COGNITO_USER_POOL_ID",
      "SMTP_URL",
      "TRUST_PROXY_HOPS",
    ]) {
      expect(output).toContain(`${variable} is required in production`);
    }
  },
  SPAWN_TIMEOUT_MS,
);

test(
  "npm start refuses the Cognito stand-in",
  async () => {
    const { code, output } = await startProduction({ ...COMPLETE, COGNITO_ENDPOINT: "http://[::ffff:127.0.0.1]:9229" });
    expect(code).toBe(1);
    expect(output).toContain("COGNITO_ENDPOINT points at a local stand-in");
  },
  SPAWN_TIMEOUT_MS,
);

test(
  "npm start refuses a plain-http origin and an unstated proxy-hop count",
  async () => {
    const { TRUST_PROXY_HOPS: _unset, ...withoutHops } = COMPLETE;
    const { code, output } = await startProduction({ ...withoutHops, APP_ORIGIN: "http://id.example.jp" });
    expect(code).toBe(1);
    expect(output).toContain("APP_ORIGIN must be https in production");
    expect(output).toContain("TRUST_PROXY_HOPS is required in production");
  },
  SPAWN_TIMEOUT_MS,
);

test(
  "the server refuses to start without a mode, or with a misspelt one, instead of running development",
  async () => {
    // The environment alone would be enough for development mode: only the missing mode may stop it.
    const temp = makeTempDir("no-mode");
    try {
      for (const args of [[], ["--mode=prod"]]) {
        const { code, output } = await startServer(args, { DATA_DIR: temp.dir, PORT: String(await findFreePort()) });
        expect(output, args.join(" ")).not.toContain("ready at");
        expect(code, args.join(" ")).toBe(1);
        expect(output, args.join(" ")).toMatch(/--mode.*dev.*preview.*production/);
      }
    } finally {
      temp.remove();
    }
  },
  2 * SPAWN_TIMEOUT_MS,
);
