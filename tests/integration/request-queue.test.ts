import { once } from "node:events";
import http from "node:http";
import { expect, test } from "vitest";
import { useTestServers } from "../support/session-servers";
import { findFreePort } from "../support/stand-ins/cognito-stand-in";

/**
 * The start queue (app/server/request-queue.ts) in the production server's request path: with one place
 * (REQUEST_QUEUE_IN_PROGRESS=1) held by a form post whose body has not all arrived, a burst of page requests waits its
 * turn, as the metrics show, and every one of them is answered once the place is free. The hold limit is raised so
 * that the held post keeps its place until the test sends the rest of its body.
 */
const METRICS_PORT = await findFreePort();
const BURST = 12;
const servers = useTestServers({
  main: { METRICS_PORT: String(METRICS_PORT), REQUEST_QUEUE_IN_PROGRESS: "1", REQUEST_QUEUE_HOLD_MS: "30000" },
});

async function queueGauges(): Promise<{ inProgress: number; waiting: number }> {
  const body = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(body)?.[1]);
  return { inProgress: value("http_requests_in_progress"), waiting: value("http_requests_waiting") };
}

test("requests over the cap wait in the start queue, shown by its gauges, and are all answered when a place frees", async () => {
  const { main } = servers;
  // Invalid (no password): once its body is whole the page answers 400 without asking Cognito.
  const form = Buffer.from("intent=sign-in&email=queue%40example.jp");
  // The page lane reads a form post's body before any route runs, so a post whose body is still arriving holds its
  // place for as long as the client takes.
  const held = http.request(`${main.process.url}/en/auth/sign-in/`, {
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
  await expect.poll(queueGauges).toEqual({ inProgress: 1, waiting: 0 });

  // Each on a connection of its own (undici opens as many as there are requests in flight).
  const burst = Array.from({ length: BURST }, async () => {
    const response = await fetch(`${main.process.url}/en/auth/sign-in/`);
    await response.arrayBuffer();
    return response.status;
  });
  await expect.poll(queueGauges).toEqual({ inProgress: 1, waiting: BURST });

  held.end(form.subarray(1));
  const [response] = await heldAnswer;
  response.resume();
  expect(response.statusCode).toBe(400);
  // None refused or reset: every request that waited is answered.
  expect(await Promise.all(burst)).toEqual(Array.from({ length: BURST }, () => 200));
  await expect.poll(queueGauges).toEqual({ inProgress: 0, waiting: 0 });
});
