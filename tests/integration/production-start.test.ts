import { spawn } from "node:child_process";
import { expect, test } from "vitest";

/** Runs the production server with the given environment and collects how it ends. */
function startProduction(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "app/server/main.ts", "--mode=production"], {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", LOG_LEVEL: "silent", ...env },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

test("npm start refuses to run without real configuration and names what is missing", async () => {
  const { code, stderr } = await startProduction({});
  expect(code).toBe(1);
  for (const variable of ["APP_ORIGIN", "SESSION_SECRETS", "DATABASE_URL", "COGNITO_USER_POOL_ID", "SMTP_URL"]) {
    expect(stderr).toContain(`${variable} is required in production`);
  }
});

test("npm start refuses the Cognito stand-in", async () => {
  const { code, stderr } = await startProduction({
    APP_ORIGIN: "https://id.example.jp",
    SESSION_SECRETS: "x".repeat(40),
    DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    COGNITO_REGION: "ap-northeast-1",
    COGNITO_USER_POOL_ID: "pool",
    COGNITO_CLIENT_ID: "client",
    COGNITO_ENDPOINT: "http://127.0.0.1:9229",
    SMTP_URL: "smtp://127.0.0.1:25",
  });
  expect(code).toBe(1);
  expect(stderr).toContain("COGNITO_ENDPOINT points at a local stand-in");
});
