import { createServer } from "node:http";
import { expect, test } from "vitest";
import { SERVER_TIMEOUTS, applyServerTimeouts } from "~/server/server-timeouts";

test("the server's header, request and keep-alive timeouts are ours, not Node's defaults", () => {
  const server = applyServerTimeouts(createServer());
  expect(server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeoutMs);
  expect(server.requestTimeout).toBe(SERVER_TIMEOUTS.requestTimeoutMs);
  expect(server.keepAliveTimeout).toBe(SERVER_TIMEOUTS.keepAliveTimeoutMs);
  // Node's defaults (60 s, 300 s, 5 s) would leave slow clients five minutes and close before a balancer does.
  expect(server.requestTimeout).toBeLessThan(300_000);
  expect(server.keepAliveTimeout).toBeGreaterThan(60_000);
  // Node checks headers only while a request is under way: the whole request's limit must be the larger one.
  expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
});
