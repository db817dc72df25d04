import { once } from "node:events";
import { existsSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { expect, test } from "vitest";
import { spawnNodeScript } from "../../support/node-child";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import { makeTempDir } from "../../support/temp-dir";

// The compiled production server on embedded defaults; `npm test` builds before it runs the Vitest suites.
test(
  "the preview server starts on embedded defaults, logs requests without secrets, and shuts down cleanly",
  async () => {
    expect(existsSync("build/http-server/start-server.js"), "run `npm run build` first").toBe(true);
    const server = await startServerProcess("preview", { LOG_LEVEL: "info" });
    try {
      expect(server.stdout()).toMatch(/Development admin: admin@example\.com \/ \S+/);

      const health = await fetch(`${server.url}/healthz/?token=do-not-log-me`);
      expect(health.status).toBe(200);
      const requestId = health.headers.get("x-request-id");
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await fetch(`${server.url}/readyz/`)).status).toBe(200);

      // Logs are written when a response finishes; give the line a moment to reach the pipe.
      await expect.poll(() => server.stdout().includes(requestId!)).toBe(true);
      const line = server
        .stdout()
        .split("\n")
        .find((candidate) => candidate.includes(requestId!))!;
      expect(JSON.parse(line)).toMatchObject({ requestId, method: "GET", path: "/healthz/", status: 200 });
      expect(server.stdout()).not.toContain("do-not-log-me");

      const page = await fetch(`${server.url}/`, { headers: { "Accept-Language": "ja" } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html lang="ja"');
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
    // The test starts the server itself: it gets the start-up's own allowance (a loaded CI machine can need over 30 s).
  },
  SERVER_START_TIMEOUT_MS + 30_000,
);

test(
  "a server whose port is taken says so in one line and exits, without a stack trace",
  async () => {
    const holder = createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const port = (holder.address() as AddressInfo).port;
    // Refused before the stand-ins or the database start: nothing is made in the data directory.
    const temp = makeTempDir("port-taken");
    try {
      const child = spawnNodeScript("app/server/dev-entry.ts", ["--mode=preview"], {
        env: {
          ...process.env,
          NODE_ENV: "production",
          LOG_LEVEL: "silent",
          HOST: "127.0.0.1",
          PORT: String(port),
          APP_ORIGIN: `http://localhost:${port}`,
          DATA_DIR: temp.dir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code, output).toBe(1);
      expect(output).toContain(`Port ${port} on 127.0.0.1 is already in use (EADDRINUSE)`);
      expect(output).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
      temp.remove();
    }
  },
  SERVER_START_TIMEOUT_MS,
);
