import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequestHandler, type ServerBuild } from "react-router";
import { ApiError, apiErrorResponse } from "~/api/api-response.server";
import { translatorFor } from "~/i18n/translator.server";
import { maxApiBodyBytesOf } from "~/api/contract";
import { MAX_API_BODY_BYTES } from "~/api/endpoint";
import { localeFromAcceptLanguage } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { isApiPath } from "~/routing/api-paths";
import type { ApiCors } from "./cors";
import type { RequestInfo } from "~/router-context.server";
import type { Build, LargeBodyGate, RequestContextFactory } from "./app-context";
import { headersOf, readBody } from "./node-request";
import { type WholeAnswerWriter, isStreamedDownload, writeBody } from "./write-body";

/** Methods node:http accepts but fetch's Request refuses to carry. */
const FETCH_FORBIDDEN_METHODS = new Set(["TRACE", "TRACK", "CONNECT"]);
const API_METHODS = "GET, HEAD, POST, DELETE, OPTIONS";

export interface ApiLaneOptions {
  build: Build;
  mode: "development" | "production";
  /** Our public origin: the base of the URL React Router sees (no API answer depends on the Host header). */
  origin: string;
  contextFor: RequestContextFactory;
  /** Asked before reading past MAX_API_BODY_BYTES of a body an endpoint takes more of (the CSV import: staff). */
  largeBodyGate: LargeBodyGate;
  cors: ApiCors;
  /** Request id, security headers and the access log line, as for every other request. */
  beginRequest(req: IncomingMessage, res: ServerResponse): RequestInfo;
  /** Writes an answer, gzipped when it gains from it (the OpenAPI document; a device list does not). */
  writeWhole: WholeAnswerWriter;
}

const isApiRoute = (route: ServerBuild["routes"][string]) => route?.path !== undefined && isApiPath(`/${route.path}`);

/**
 * The build's API resource routes alone, as top-level routes. app/routes.ts must nest them under the root route,
 * whose middleware (canonical URLs, session cookie, the language from the path) is for pages only: the API reads no
 * cookie, must not be redirected, and takes its language from Accept-Language (its handlers run remix-i18next's
 * middleware themselves, app/api/api-handler.server.ts). Matching among a dozen routes instead of every page in two languages,
 * twice per request, is also what makes the API's handling cheap (see createApiLane).
 */
export function apiRoutesOf(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes)
      .filter(([, route]) => isApiRoute(route))
      .map(([id, route]) => [id, { ...route!, parentId: undefined }]),
  );
  return { ...build, routes };
}

/**
 * The build without the API's routes, for the pages' handler: the API is served by this lane only, so a path that
 * React Router alone would take for an API route (/API/…, /%61pi/…: its matching ignores case and decodes) is a
 * page 404, never an API call with the pages' middleware and headers.
 */
export function pageRoutesOf(build: ServerBuild): ServerBuild {
  return withRoutes(build, (id) => !isApiRoute(build.routes[id]));
}

/** The build with only the routes whose ids `keep` accepts. */
export function withRoutes(build: ServerBuild, keep: (id: string) => boolean): ServerBuild {
  const pick = <T>(routes: Record<string, T>) => Object.fromEntries(Object.entries(routes).filter(([id]) => keep(id)));
  // The browser's route manifest must name the same routes as the server's, or rendering fails.
  return { ...build, routes: pick(build.routes), assets: { ...build.assets, routes: pick(build.assets.routes) } };
}

/** A build, or development's build loader, narrowed to some of its routes. */
export function narrowBuild(build: Build, narrow: (build: ServerBuild) => ServerBuild): Build {
  return typeof build === "function" ? () => build().then(narrow) : narrow(build);
}

/**
 * The member API's way in: /api/* goes from node:http to React Router's own request handler, given the API's
 * resource routes only (apiRoutesOf), without Express and without the pages' origin check. What every request
 * gets is done here too: request id, security headers and access log (beginRequest), CORS, and gzip for the answers
 * big enough to gain from it (the OpenAPI document). Skipping Express and the pages' route table is what keeps the
 * API near a bare node:http handler's rate (`npm run bench:api`, tests/bench/README.md).
 */
export function createApiLane(options: ApiLaneOptions) {
  const handleRequest = createRequestHandler(narrowBuild(options.build, apiRoutesOf), options.mode);

  function send(req: IncomingMessage, res: ServerResponse, response: Response, body: Buffer | undefined) {
    const writeHead = () => {
      res.statusCode = response.status;
      for (const [name, value] of response.headers) res.setHeader(name, value);
    };
    options.writeWhole(req, res, writeHead, body);
  }

  /**
   * The envelope for what never reaches a route: a refused preflight, a method fetch() refuses (TRACE), a path
   * that leaves /api/, a body over the limit, or a failure in this lane. No route runs, so there is no request's
   * i18next instance: the text comes from the one for text outside requests.
   */
  async function sendError(req: IncomingMessage, res: ServerResponse, error: ApiError, requestId: string) {
    const locale = localeFromAcceptLanguage(req.headers["accept-language"] ?? null);
    const response = apiErrorResponse(error, { translate: translatorFor(locale), locale, requestId });
    send(req, res, response, Buffer.from(await response.arrayBuffer()));
  }

  return async function apiLane(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestInfo = options.beginRequest(req, res);
    const cors = options.cors(req, res);
    if (cors === "answered") return;
    if (cors === "refused") return sendError(req, res, new ApiError("origin_not_allowed"), requestInfo.requestId);
    const method = req.method ?? "GET";
    if (FETCH_FORBIDDEN_METHODS.has(method)) {
      const refusal = new ApiError("method_not_allowed", { headers: { Allow: API_METHODS } });
      return sendError(req, res, refusal, requestInfo.requestId);
    }
    const url = new URL(req.url ?? "/", options.origin);
    // Dot segments ("/api/../x", "/api/%2e%2e/x") can lead out of /api/ once resolved: no route of this lane's is
    // there, and React Router, given none, would fail rendering a page.
    if (!isApiPath(url.pathname)) return sendError(req, res, new ApiError("not_found"), requestInfo.requestId);
    try {
      const hasBody = method !== "GET" && method !== "HEAD";
      // The CSV import's file has a limit of its own (the contract's rawBody), for staff only; every other body
      // MAX_API_BODY_BYTES.
      const limit = maxApiBodyBytesOf(url.pathname);
      let refusal: ApiError | undefined;
      const larger = {
        bytes: limit,
        allowed: async () => {
          const gate = await options.largeBodyGate(requestInfo, new Request(url, { headers: headersOf(req) }), "api");
          if (gate) refusal = new ApiError(gate.code, { headers: gate.headers });
          return !gate;
        },
      };
      const body = hasBody
        ? await readBody(req, MAX_API_BODY_BYTES, limit > MAX_API_BODY_BYTES ? larger : undefined)
        : undefined;
      if (body === "gone") return;
      if (body === "refused") {
        res.setHeader("Connection", "close");
        return await sendError(req, res, refusal!, requestInfo.requestId);
      }
      if (body === "too large") {
        // What is left unread is not worth draining: the connection closes after the answer.
        if (!req.complete) res.setHeader("Connection", "close");
        return await sendError(req, res, new ApiError("payload_too_large"), requestInfo.requestId);
      }
      // Only reads get an abort signal (a download's cursor stops when its client leaves): a POST or DELETE handler
      // runs to completion, so a dropped connection cannot leave half an effect.
      const request = new Request(url, { method, headers: headersOf(req), body, signal: readSignalOf(method, res) });
      const response = await handleRequest(request, await options.contextFor(requestInfo));
      if (response.body && isStreamedDownload(response.headers.get("Content-Type"))) {
        return await sendStreamed(res, response, response.body, method === "HEAD");
      }
      const answer = method === "HEAD" || !response.body ? undefined : Buffer.from(await response.arrayBuffer());
      send(req, res, response, answer);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      logger.error({ err: error, requestId: requestInfo.requestId }, "the API lane failed");
      await sendError(req, res, new ApiError("internal_error"), requestInfo.requestId);
    }
  };
}

/** Aborted when the response closes before it finished (the client went away), for GET and HEAD only. */
function readSignalOf(method: string, res: ServerResponse): AbortSignal | undefined {
  if (method !== "GET" && method !== "HEAD") return undefined;
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** A download as it is produced (never buffered, never compressed): see write-body.ts. */
async function sendStreamed(
  res: ServerResponse,
  response: Response,
  body: ReadableStream<Uint8Array>,
  headOnly: boolean,
) {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  if (headOnly) {
    await body.cancel();
    return void res.end();
  }
  await writeBody(body, res);
}
