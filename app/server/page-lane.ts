import { type IncomingMessage, STATUS_CODES, type ServerResponse } from "node:http";
import type { ErrorRequestHandler } from "express";
import { type RouterContextProvider, type ServerBuild, createRequestHandler } from "react-router";
import { LOCALES, type Locale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { type RenderedDocument, type RequestInfo, renderedDocumentContext } from "~/router-context.server";
import { routeId } from "~/routing/route-table";
import { narrowBuild, pageRoutesOf, withRoutes } from "./api-lane";
import type { Build, LargeBodyGate, RequestContextFactory } from "./app-context";
import { headersOf, readBody } from "./node-request";
import { type WholeAnswerWriter, isStreamedDownload, writeBody } from "./write-body";

/** Every page form posts a few fields (sign-up's questionnaire is the largest). */
export const PAGE_BODY_LIMIT_BYTES = 64 * 1024;
/** Pages are read (GET, HEAD) and their forms post (POST); nothing else reaches a route. */
const PAGE_METHODS = new Set(["GET", "HEAD", "POST"]);
const ALLOW_HEADER = [...PAGE_METHODS].join(", ");
/** What a browser's form sends, with or without JavaScript: the only bodies page actions read. */
const FORM_CONTENT_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** A page's body limit: its own in `largerLimits` (by path), PAGE_BODY_LIMIT_BYTES for every other page. */
export function pageBodyLimitBytes(pathname: string, largerLimits: ReadonlyMap<string, number>): number {
  // JavaScript's form posts go to the page's data URL ("/my/profile/edit/_.data"); the limit is the page's.
  return largerLimits.get(pathname.replace(/_?\.data$/, "")) ?? PAGE_BODY_LIMIT_BYTES;
}

export interface PageLaneOptions {
  build: Build;
  mode: "development" | "production";
  /** Our public origin: the base of every URL React Router sees, whatever the Host header says (or lacks). */
  origin: string;
  contextFor: RequestContextFactory;
  /**
   * Pages whose forms may post more than PAGE_BODY_LIMIT_BYTES, by path in both languages, with their limits: taken
   * only from whom `largeBodyGate` lets through (staff), asked once a body passes PAGE_BODY_LIMIT_BYTES.
   */
  largerBodyLimits: ReadonlyMap<string, number>;
  largeBodyGate: LargeBodyGate;
  /** Writes a page's answer, gzipped when it gains from it. */
  writeWhole: WholeAnswerWriter;
}

/** A page request's way from node:http to its answer, given what beginRequest learned about it. */
export type PageLane = (req: IncomingMessage, res: ServerResponse, requestInfo: RequestInfo) => Promise<void>;

/** A request the pages refuse before React Router runs, and why (logged, never shown). */
interface Refusal {
  status: 400 | 405 | 413 | 415;
  reason: string;
  headers?: Record<string, string>;
}

const REFUSAL_TEXT: Record<Refusal["status"], string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  413: "Content Too Large: this form sent more than a page accepts.",
  415: "Unsupported Media Type: pages accept form posts only.",
};

/** Where React Router's browser side asks for the routes of the paths it links to (its default). */
export const ROUTE_DISCOVERY_PATH = "/__manifest";

/** Where a page path can lead: its language, and its first segment below the language's prefix ("" for home). */
interface RouteAddress {
  locale: Locale;
  firstSegment: string;
}

/**
 * A page path's address, decided as React Router matches: on the page's path (a data request's suffix removed, as
 * our trailing-slash-aware data requests have it), decoded (the lane refuses paths that cannot be), ignoring case.
 * Only English routes can match below /en (they outrank the Japanese catch-all there), and only Japanese ones
 * elsewhere.
 */
function routeAddressOf(requestPathname: string): RouteAddress {
  const pathname = requestPathname.endsWith("/_.data")
    ? requestPathname.slice(0, -"_.data".length)
    : requestPathname.replace(/\.data$/, "");
  const segments = pathname
    .split("/")
    .slice(1)
    .map((segment) => decodeURIComponent(segment).toLowerCase());
  return segments[0] === "en"
    ? { locale: "en", firstSegment: segments[1] ?? "" }
    : { locale: "ja", firstSegment: segments[0] ?? "" };
}

type PageRoute = ServerBuild["routes"][string];

/** A page route's first segment below its language's prefix, or null for a route that can match any path (a layout, the catch-all). */
function firstSegmentOf(route: PageRoute): string | null {
  if (route?.path === undefined) return null;
  const segments = route.path.toLowerCase().split("/");
  if (route.id.startsWith(routeId("en", ""))) segments.shift();
  const first = segments[0] ?? "";
  return first.startsWith(":") || first.startsWith("*") ? null : first;
}

/**
 * Which of a language's routes a handler holds: its whole table, the routes under one first segment, or none of
 * those (for a path whose first segment no route has). Layouts and catch-alls, which can match anywhere, are in
 * every section.
 */
type Section = { kind: "whole" } | { kind: "segment"; firstSegment: string } | { kind: "elsewhere" };

/**
 * The root and the routes of `section` of one language. React Router matches every request against its whole route
 * table several times (the server's match, the query's, the render's router and its partial manifest) and rebuilds
 * the render's route tree each time, at a cost that grows with the table: a section of one language's table keeps
 * that work small (tests/bench/README.md measures page views).
 */
function sectionRoutesOf(locale: Locale, section: Section) {
  return (build: ServerBuild) =>
    withRoutes(build, (id) => {
      const route = build.routes[id];
      if (route?.parentId === undefined) return true;
      if (!id.startsWith(routeId(locale, ""))) return false;
      const routeSegment = firstSegmentOf(route);
      if (routeSegment === null || section.kind === "whole") return true;
      return section.kind === "segment" && routeSegment === section.firstSegment;
    });
}

/** Every first segment some page route of `locale` starts with. */
function firstSegmentsOf(build: ServerBuild, locale: Locale): string[] {
  const segments = Object.entries(build.routes)
    .filter(([id]) => id.startsWith(routeId(locale, "")))
    .map(([, route]) => firstSegmentOf(route));
  return [...new Set(segments.filter((segment) => segment !== null))];
}

type RouteHandler = ReturnType<typeof createRequestHandler>;

/**
 * The handler for a page path: one per language and first segment, all made at start, and one per language for
 * the segments no route starts with (its layouts and catch-all: the 404 page), so requests cannot make more.
 * Development's build is loaded per request and may change: there a language's whole table serves every path.
 */
function sectionHandlers(pages: Build, mode: PageLaneOptions["mode"]): (address: RouteAddress) => RouteHandler {
  const handlerOf = (locale: Locale, section: Section) =>
    createRequestHandler(narrowBuild(pages, sectionRoutesOf(locale, section)), mode);
  const byLocale = new Map(
    LOCALES.map((locale) => {
      const segments = typeof pages === "function" ? [] : firstSegmentsOf(pages, locale);
      const sections = new Map(
        segments.map((firstSegment) => [firstSegment, handlerOf(locale, { kind: "segment", firstSegment })]),
      );
      const elsewhere = handlerOf(locale, typeof pages === "function" ? { kind: "whole" } : { kind: "elsewhere" });
      return [locale, { sections, elsewhere }];
    }),
  );
  return ({ locale, firstSegment }) => {
    const { sections, elsewhere } = byLocale.get(locale)!;
    return sections.get(firstSegment) ?? elsewhere;
  };
}

/**
 * The pages' way into React Router, in place of @react-router/express's handler and without Express itself (as the
 * API's lane): one place that checks what every page route would otherwise have to, before any route runs, so bad
 * input gets a 4xx and never a 500. A page is read with GET or HEAD and posted to with a form: other methods get 405,
 * other bodies 415, broken multipart 400, and a body is read by streamed count up to its page's limit (413 past it,
 * the connection then closed), so an action's request.formData() can neither fail nor buffer an unbounded upload.
 * The URL comes from our configured origin, so a missing or malformed Host header (HTTP/1.0) cannot fail the request
 * and a forged one cannot reach the app.
 */
export function createPageLane(options: PageLaneOptions): PageLane {
  const pages = narrowBuild(options.build, pageRoutesOf);
  // The browser's route discovery may ask about pages of either language at once.
  const everyPage = createRequestHandler(pages, options.mode);
  const handlerFor = sectionHandlers(pages, options.mode);
  const handleRequest = (request: Request, context: RouterContextProvider, pathname: string) =>
    (pathname === ROUTE_DISCOVERY_PATH ? everyPage : handlerFor(routeAddressOf(pathname)))(request, context);

  async function refusalOrBody(
    req: IncomingMessage,
    url: URL,
    requestInfo: RequestInfo,
  ): Promise<Refusal | Buffer<ArrayBuffer> | "gone" | undefined> {
    const method = req.method ?? "GET";
    if (!PAGE_METHODS.has(method)) {
      return { status: 405, reason: "method not allowed", headers: { Allow: ALLOW_HEADER } };
    }
    if (method !== "POST") return undefined;
    const contentType = req.headers["content-type"] ?? "";
    if (!FORM_CONTENT_TYPES.has(mediaTypeOf(contentType))) return { status: 415, reason: "not a form post" };
    const limit = pageBodyLimitBytes(url.pathname, options.largerBodyLimits);
    const larger = {
      bytes: limit,
      allowed: async () =>
        !(await options.largeBodyGate(requestInfo, new Request(url, { headers: headersOf(req) }), "page")),
    };
    const body = await readBody(req, PAGE_BODY_LIMIT_BYTES, limit > PAGE_BODY_LIMIT_BYTES ? larger : undefined);
    if (body === "too large") return { status: 413, reason: "body over the page limit" };
    if (body === "refused") return { status: 413, reason: "large body from someone who is not staff" };
    if (body === "gone" || mediaTypeOf(contentType) !== "multipart/form-data") return body;
    // Parsed once here (the body is bounded by now) so that a broken multipart body is the client's 400, not an action's 500.
    try {
      await new Request(url, { method, headers: { "Content-Type": contentType }, body }).formData();
    } catch {
      return { status: 400, reason: "malformed multipart body" };
    }
    return body;
  }

  return async function pageLane(req, res, requestInfo) {
    try {
      const url = requestUrl(options.origin, req.url ?? "");
      if (!url) return refuse(req, res, requestInfo, { status: 400, reason: "malformed request target or path" });
      const outcome = await refusalOrBody(req, url, requestInfo);
      if (outcome === "gone") return;
      if (outcome && !Buffer.isBuffer(outcome)) return refuse(req, res, requestInfo, outcome);
      const controller = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) controller.abort();
      });
      const request = new Request(url, {
        method: req.method,
        headers: headersOf(req),
        body: outcome,
        signal: controller.signal,
      });
      const context = await options.contextFor(requestInfo);
      const response = await handleRequest(request, context, url.pathname);
      await send(req, res, response, options.writeWhole, context.get(renderedDocumentContext));
    } catch (error) {
      answerError(res, error, requestInfo.requestId);
    }
  };
}

/**
 * The last word on an error nothing else answered: a client's error (a malformed escape in a static file's path)
 * keeps its 4xx, anything else is a 500; either way one structured log line, never a raw stack trace on stderr
 * (Express's default handler prints one).
 */
function answerError(res: ServerResponse, error: unknown, requestId: string | undefined) {
  const status = httpStatusOf(error);
  if (status < 500)
    logger.warn({ requestId, status, reason: String((error as Error)?.message ?? error) }, "request refused");
  else logger.error({ err: error, requestId }, "request failed");
  if (res.headersSent) return void res.destroy();
  sendText(res, status, STATUS_CODES[status] ?? "Error");
}

/** answerError for what Express (static files, health checks) passes on. */
export const answerUnhandledError: ErrorRequestHandler = (error: unknown, _req, res, _next) =>
  answerError(res, error, res.locals.requestInfo?.requestId);

/** A short plain-text answer (a refusal or an error): the page's security headers, set earlier, stay. */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  res.statusCode = status;
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

function httpStatusOf(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 600 ? status : 500;
}

function refuse(req: IncomingMessage, res: ServerResponse, requestInfo: RequestInfo, refusal: Refusal) {
  logger.warn(
    { requestId: requestInfo.requestId, status: refusal.status, reason: refusal.reason },
    "page request refused",
  );
  // Whatever is left of a body we stopped reading is not worth draining: the connection closes after the answer.
  if (!req.complete) res.setHeader("Connection", "close");
  sendText(res, refusal.status, REFUSAL_TEXT[refusal.status], refusal.headers);
}

/**
 * The URL React Router sees: our origin and the request target as sent (dot segments and all: the canonical
 * redirect and the routes deal with the path). Null for targets that are no path ("*", absolute forms) and for
 * paths with a malformed percent-escape ("/%"), which no route could be named by.
 */
function requestUrl(origin: string, target: string): URL | null {
  if (!target.startsWith("/")) return null;
  try {
    const url = new URL(`${origin}${target}`);
    decodeURIComponent(url.pathname);
    return url;
  } catch {
    return null;
  }
}

/** "multipart/form-data; boundary=x" → "multipart/form-data". */
function mediaTypeOf(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/**
 * Downloads stream as they are produced (write-body.ts). Everything else, pages included (no loader defers data,
 * so a page is complete a moment after its shell, and the entry hands its HTML over as one buffer), goes out in one
 * piece: gzip then works on one buffer instead of each of React's small writes (zlib work per chunk weighs on every
 * page view) and sees the length, so a small body goes uncompressed.
 */
async function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  writeWhole: WholeAnswerWriter,
  rendered: RenderedDocument | null,
) {
  if (res.destroyed || res.writableEnded) return void (await response.body?.cancel());
  const writeHead = () => {
    res.statusCode = response.status;
    res.statusMessage = response.statusText;
    // Appended, not set: a page may set several cookies.
    for (const [name, value] of response.headers) res.appendHeader(name, value);
  };
  if (response.body && isStreamedDownload(response.headers.get("Content-Type"))) {
    writeHead();
    return writeBody(response.body, res);
  }
  if (rendered?.response === response) return writeWhole(req, res, writeHead, rendered.html);
  const body = response.body
    ? await response.arrayBuffer().catch((error: unknown) => {
        // The client left and the render was aborted: nobody to answer.
        if (res.destroyed) return null;
        throw error;
      })
    : undefined;
  if (body === null || res.destroyed) return;
  writeWhole(req, res, writeHead, body && Buffer.from(body));
}
