import { once } from "node:events";
import http from "node:http";
import { expect, test } from "vitest";
import { useTestServers } from "../../support/session-servers";
import { findFreePort } from "../../support/stand-ins/cognito-stand-in";

/**
 * The concurrency limit (app/server/concurrency-limit.ts) in the production server's request path: one place
 * (REQUESTS_IN_PROGRESS_MAX=1), held by a form post whose body has not all arrived (its body is read before any
 * route runs), and room for one request to wait. A second waiting request is shed at once, the waiting one once it
 * has waited REQUEST_WAIT_MAX_MS, both with 503 and Retry-After; the health check never waits.
 */
const METRICS_PORT = await findFreePort();
const WAIT_MAX_MS = 5_000;
const servers = useTestServers({
  main: {
    METRICS_PORT: String(METRICS_PORT),
    REQUESTS_IN_PROGRESS_MAX: "1",
    REQUESTS_WAITING_MAX: "1",
    REQUEST_WAIT_MAX_MS: String(WAIT_MAX_MS),
  },
});

async function limitMetrics(): Promise<{ inProgress: number; waiting: number; shed: number }> {
  const body = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(body)?.[1]);
  return {
    inProgress: value("http_requests_in_progress"),
    waiting: value("http_requests_waiting"),
    shed: value("http_requests_shed_total"),
  };
}

test("past the waiting list's length or its wait, requests are shed with 503 and Retry-After; health checks pass", async () => {
  const { main } = servers;
  const page = `${main.process.url}/en/auth/sign-in/`;
  // Invalid (no password): once its body is whole the page answers 400 without asking Cognito.
  const form = Buffer.from("intent=sign-in&email=limit%40example.jp");
  const held = http.request(page, {
    method: "POST",
    agent: false,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Content-Length": String(form.length),
      Origin: main.origin,
      "Sec-Fetch-Site": "same-origin",
    },
  });
  const heldAnswer = once(held, "response") as Promise<[http.IncomingMessage]>;
  held.write(form.subarray(0, 1));
  await expect.poll(limitMetrics).toEqual({ inProgress: 1, waiting: 0, shed: 0 });

  const waiting = fetch(page);
  await expect.poll(limitMetrics).toEqual({ inProgress: 1, waiting: 1, shed: 0 });
  const overflow = await fetch(page);
  expect(overflow.status).toBe(503);
  expect(overflow.headers.get("Retry-After")).toMatch(/^\d+$/);
  expect((await fetch(`${main.process.url}/healthz/`)).status).toBe(200);

  // The waiting request is answered once it has waited its limit, the place still held.
  const timedOut = await waiting;
  expect(timedOut.status).toBe(503);
  expect(timedOut.headers.get("Retry-After")).toMatch(/^\d+$/);
  expect(await limitMetrics()).toEqual({ inProgress: 1, waiting: 0, shed: 2 });

  held.end(form.subarray(1));
  const [response] = await heldAnswer;
  response.resume();
  expect(response.statusCode).toBe(400);
  await expect.poll(limitMetrics).toEqual({ inProgress: 0, waiting: 0, shed: 2 });
  expect((await fetch(page)).status).toBe(200);
});
