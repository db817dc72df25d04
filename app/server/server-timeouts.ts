import type { Server } from "node:http";

/**
 * node:http's timeouts, set explicitly rather than left to Node's defaults, which change between
 * releases and let a slow client hold a connection for five minutes.
 */
export const SERVER_TIMEOUTS = {
  /** A client must have sent its request headers by then (slowloris), answered 408. */
  headersTimeoutMs: 20_000,
  /** ...and its whole request, body included: page forms and API bodies are small. */
  requestTimeoutMs: 30_000,
  /**
   * An idle keep-alive connection closes after this. Longer than the load balancer's idle timeout (ALB's default
   * is 60 s), so that the balancer always closes first and never sends a request on a socket we are closing (a 502).
   */
  keepAliveTimeoutMs: 65_000,
} as const;

/** Applies SERVER_TIMEOUTS to a server before it listens; returns it for chaining. */
export function applyServerTimeouts(server: Server): Server {
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeoutMs;
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeoutMs;
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeoutMs;
  return server;
}
