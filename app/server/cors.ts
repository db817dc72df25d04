import type { RequestHandler } from "express";
import { API_ERROR_STATUS } from "~/api/contract";
import { localeFromAcceptLanguage } from "~/i18n/locales";
import { RESOURCES } from "~/i18n/resources";
import type { RequestInfo } from "./request-context";

const ALLOWED_METHODS = "GET, POST, DELETE";
const ALLOWED_HEADERS = "Authorization, Content-Type, Accept-Language";
const EXPOSED_HEADERS = "X-Request-Id, Retry-After, Content-Language, WWW-Authenticate";
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * CORS for /api/ (DESIGN.md "Sibling services"): only the configured sibling origins (SERVICE_ORIGIN_*) may call
 * the API from a browser, and without credentials: the API reads bearer tokens, never cookies. A preflight from
 * any other origin is refused (403, no Access-Control-* headers), so the browser never sends the real request.
 * Preflights are answered here because React Router has no OPTIONS handler for resource routes.
 */
export function apiCors(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins.map((origin) => new URL(origin).origin));
  return (req, res, next) => {
    res.vary("Origin");
    const origin = req.get("Origin");
    const permitted = origin !== undefined && allowed.has(origin);
    if (permitted) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    if (req.method !== "OPTIONS") return next();
    res.setHeader("Cache-Control", "no-store");
    if (!permitted) {
      const locale = localeFromAcceptLanguage(req.get("Accept-Language") ?? null);
      const { requestId } = res.locals.requestInfo as RequestInfo;
      res.status(API_ERROR_STATUS.origin_not_allowed).json({
        error: { code: "origin_not_allowed", message: RESOURCES[locale].api.errors.origin_not_allowed, requestId },
      });
      return;
    }
    res.setHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
    res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_S));
    res.status(204).end();
  };
}
