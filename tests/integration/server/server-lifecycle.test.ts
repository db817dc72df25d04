import { existsSync } from "node:fs";
import { expect, test } from "vitest";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";

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
