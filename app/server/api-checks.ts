import type { IncomingHttpHeaders } from "node:http";
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import { ApiError, apiErrorResponse } from "~/api/api-response.server";
import { maxApiBodyBytesOf } from "~/api/contract";
import { MAX_API_BODY_BYTES } from "~/api/endpoint";
import { localeFromAcceptLanguage } from "~/i18n/locales";
import { translatorFor } from "~/i18n/translator.server";
import type { LargeBodyGate } from "./app-context";
import type { ApiCors } from "./cors";
import { readBody } from "./node-request";

/** Methods node:http accepts but fetch's Request refuses to carry. */
const FETCH_FORBIDDEN_METHODS = new Set(["TRACE", "TRACK", "CONNECT"]);
const API_METHODS = "GET, HEAD, POST, DELETE, OPTIONS";

export interface ApiCheckOptions {
  /** Our public origin: the base of the URL React Router sees. */
  origin: string;
  cors: ApiCors;
  /** Asked before reading past MAX_API_BODY_BYTES of a body an endpoint takes more of (the CSV import: staff). */
  largeBodyGate: LargeBodyGate;
}

/**
 * What the member API's requests get before React Router runs their route: CORS (preflights answered here, as
 * React Router has no OPTIONS handler for resource routes), the envelope for what no route can take (a method
 * fetch() refuses, a path whose dot segments lead out of /api/) and a body read within its limit. The routes
 * themselves validate content types and everything else. The pages' origin check does not apply: the API reads
 * bearer tokens, never cookies, so a cross-site request carries nothing to abuse; browsers may call it from the
 * sibling origins only (CORS). Every answer here is the API's error envelope, `Cache-Control: no-store` as every
 * API answer (app/api/api-response.server.ts).
 */
export function createApiChecks(options: ApiCheckOptions): RequestHandler {
  return async (req, res, next) => {
    const requestId = res.locals.requestInfo.requestId;
    const cors = options.cors(req, res);
    if (cors === "answered") return;
    if (cors === "refused") return sendApiError(req, res, new ApiError("origin_not_allowed"), requestId);
    if (FETCH_FORBIDDEN_METHODS.has(req.method)) {
      const refusal = new ApiError("method_not_allowed", { headers: { Allow: API_METHODS } });
      return sendApiError(req, res, refusal, requestId);
    }
    const url = new URL(req.originalUrl, options.origin);
    // Dot segments ("/api/../x", "/api/%2e%2e/x") lead out of /api/ once resolved: a page's path, sent as the API's.
    if (!res.locals.routedToApi) return sendApiError(req, res, new ApiError("not_found"), requestId);
    if (req.method === "GET" || req.method === "HEAD") return next();
    // The CSV import's file has a limit of its own (the contract's rawBody), for staff only; every other body
    // MAX_API_BODY_BYTES.
    const limit = maxApiBodyBytesOf(url.pathname);
    let refusal: ApiError | undefined;
    const larger = {
      bytes: limit,
      allowed: async () => {
        const request = new Request(url, { headers: headersOf(req.headers) });
        const gate = await options.largeBodyGate(res.locals.requestInfo, request, "api");
        if (gate) refusal = new ApiError(gate.code, { headers: gate.headers });
        return !gate;
      },
    };
    const body = await readBody(req, MAX_API_BODY_BYTES, limit > MAX_API_BODY_BYTES ? larger : undefined);
    if (body === "gone") return;
    if (body === "refused" || body === "too large") {
      // What is left unread is not worth draining: the connection closes after the answer.
      if (!req.complete) res.setHeader("Connection", "close");
      return sendApiError(req, res, refusal ?? new ApiError("payload_too_large"), requestId);
    }
    next();
  };
}

/**
 * The envelope for what never reaches a route. No route runs, so there is no request's i18next instance: the text
 * comes from the one for text outside requests, in the Accept-Language locale.
 */
export async function sendApiError(req: ExpressRequest, res: ExpressResponse, error: ApiError, requestId: string) {
  const locale = localeFromAcceptLanguage(req.headers["accept-language"] ?? null);
  const response = apiErrorResponse(error, { translate: translatorFor(locale), locale, requestId });
  res.status(response.status);
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** node:http's parsed headers (a repeated field joined, single-value ones its first) as fetch's Headers. */
export function headersOf(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) result.append(name, one);
  }
  return result;
}
