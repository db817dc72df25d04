import type { IncomingMessage, ServerResponse } from "node:http";
import { API_ERROR_STATUS } from "~/api/contract";
import { localeFromAcceptLanguage } from "~/i18n/locales";
import { RESOURCES } from "~/i18n/resources";

const ALLOWED_METHODS = "GET, POST, DELETE";
const ALLOWED_HEADERS = "Authorization, Content-Type, Accept-Language";
const EXPOSED_HEADERS = "X-Request-Id, Retry-After, Content-Language, WWW-Authenticate";
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/** Answers a preflight itself (true), or adds the CORS headers and leaves the request to the API (false). */
export type ApiCors = (req: IncomingMessage, res: ServerResponse, requestId: string) => boolean;

/**
 * CORS for /api/ (DESIGN.md "Sibling services"): only the configured sibling origins (SERVICE_ORIGIN_*) may call
 * the API from a browser, and without credentials: the API reads bearer tokens, never cookies. A preflight from
 * any other origin is refused (403, no Access-Control-* headers), so the browser never sends the real request.
 * Preflights are answered here because React Router has no OPTIONS handler for resource routes.
 */
export function apiCors(allowedOrigins: readonly string[]): ApiCors {
  const allowed = new Set(allowedOrigins.map((origin) => new URL(origin).origin));
  return (req, res, requestId) => {
    res.setHeader("Vary", "Origin");
    const origin = req.headers.origin;
    const permitted = origin !== undefined && allowed.has(origin);
    if (permitted) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    if (req.method !== "OPTIONS") return false;
    res.setHeader("Cache-Control", "no-store");
    if (!permitted) {
      const locale = localeFromAcceptLanguage(req.headers["accept-language"] ?? null);
      const body = JSON.stringify({
        error: { code: "origin_not_allowed", message: RESOURCES[locale].api.errors.origin_not_allowed, requestId },
      });
      res.writeHead(API_ERROR_STATUS.origin_not_allowed, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": Buffer.byteLength(body),
        "Content-Language": locale,
      });
      res.end(body);
      return true;
    }
    res.setHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
    res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_S));
    res.writeHead(204).end();
    return true;
  };
}
