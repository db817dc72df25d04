import { Agent, request } from "node:http";
import { connect } from "node:net";
import { expect, test } from "vitest";
import { SERVER_START_TIMEOUT_MS, startServerProcess } from "../../support/server-process";
import { getFault, setFault } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";

/**
 * SIGTERM on the production build (docs/deployment.md, Shutdown): not ready first while still serving, then no new
 * connections, the request in flight finished, idle keep-alive connections closed, exit 0. The request in flight is
 * a sign-in whose Cognito call the stand-in holds back for longer than the drain lasts.
 */
const DRAIN_SECONDS = 3;
const COGNITO_DELAY_MS = 10_000;

/** A GET on a keep-alive connection that stays open (idle) after its answer; resolves with the socket. */
function idleKeepAliveSocket(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<import("node:net").Socket>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz/", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(req.socket!));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Whether a new TCP connection is refused (the server no longer listens). */
function connectionRefused(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

test(
  "on SIGTERM readiness turns 503 first, the request in flight completes, idle connections close and new ones are refused",
  async () => {
    const server = await startServerProcess("preview", {
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
    });
    const port = Number(new URL(server.url).port);
    const standIn = `http://127.0.0.1:${server.standInPort}`;
    try {
      const member = await createTestMember(server.standInPort, "drain");
      expect((await fetch(`${server.url}/readyz/`)).status).toBe(200);
      const idle = await idleKeepAliveSocket(port);
      let idleClosed = false;
      idle.on("close", () => (idleClosed = true));

      await setFault(standIn, {
        mode: "slow",
        delayMs: COGNITO_DELAY_MS,
        operations: ["AdminInitiateAuth"],
        times: 1,
      });
      let slowDone = false;
      const slow = fetch(`${server.url}/auth/sign-in/`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
        body: new URLSearchParams({ intent: "sign-in", email: member.email, password: member.password }),
      }).finally(() => (slowDone = true));
      // In flight: its Cognito call is being held back.
      await expect.poll(async () => (await getFault(standIn)).applied).toBe(1);

      const exited = new Promise<number | null>((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");

      // Still serving, but not ready, and asking clients to take their next request elsewhere.
      await expect
        .poll(async () => {
          const readiness = await fetch(`${server.url}/readyz/`);
          return [readiness.status, readiness.headers.get("connection")];
        })
        .toEqual([503, "close"]);
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("connection")).toBe("close");

      // After the drain: no new connections, while the sign-in is still waiting on Cognito.
      await expect.poll(() => connectionRefused(port), { timeout: 30_000 }).toBe(true);
      expect(slowDone).toBe(false);
      await expect.poll(() => idleClosed).toBe(true);

      const answer = await slow;
      expect(answer.status).toBe(302);
      expect(answer.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(true);
      expect(await exited).toBe(0);
    } finally {
      await server.stop("SIGKILL");
    }
  },
  SERVER_START_TIMEOUT_MS + 60_000,
);
