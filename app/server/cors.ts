import type { IncomingMessage, ServerResponse } from "node:http";

const ALLOWED_METHODS = "GET, POST, DELETE";
const ALLOWED_HEADERS = "Authorization, Content-Type, Accept-Language";
const EXPOSED_HEADERS = "X-Request-Id, Retry-After, Content-Language, WWW-Authenticate";
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * "pass": the CORS headers are set and the request goes on to the API; "answered": an allowed preflight, answered;
 * "refused": a preflight from an origin that is not allowed, for the caller to answer with the error envelope.
 */
export type ApiCors = (req: IncomingMessage, res: ServerResponse) => "pass" | "answered" | "refused";

/**
 * CORS for /api/: only the configured sibling origins (SERVICE_ORIGIN_*) may call
 * the API from a browser, and without credentials: the API reads bearer tokens, never cookies. A preflight from
 * any other origin is refused (403, no Access-Control-* headers), so the browser never sends the real request.
 * Preflights are answered here because React Router has no OPTIONS handler for resource routes.
 */
export function apiCors(allowedOrigins: readonly string[]): ApiCors {
  const allowed = new Set(allowedOrigins.map((origin) => new URL(origin).origin));
  return (req, res) => {
    res.setHeader("Vary", "Origin");
    const origin = req.headers.origin;
    const permitted = origin !== undefined && allowed.has(origin);
    if (permitted) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    if (req.method !== "OPTIONS") return "pass";
    if (!permitted) return "refused";
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
    res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_S));
    res.writeHead(204).end();
    return "answered";
  };
}
