import { type IncomingMessage, STATUS_CODES } from "node:http";
import type {
  ErrorRequestHandler,
  Request as ExpressRequest,
  RequestHandler,
  Response as ExpressResponse,
} from "express";
import { createRequestHandler } from "react-router";
import { logger } from "~/integrations/logger.server";
import { type Build, narrowBuild, pageRoutesOf } from "./api-lane";
import type { RequestContextFactory } from "./app-context";
import { headersOf, readBody } from "./node-request";
import { writeBody } from "./write-body";

/** Every page form posts a few fields (sign-up's questionnaire is the largest). */
export const PAGE_BODY_LIMIT_BYTES = 64 * 1024;
/**
 * Pages whose forms may post more than PAGE_BODY_LIMIT_BYTES, by path in both languages (a later admin CSV upload
 * goes here with its own limit). Everything else gets the small one.
 */
const LARGER_PAGE_BODY_LIMITS_BYTES: ReadonlyMap<string, number> = new Map();

/** Pages are read (GET, HEAD) and their forms post (POST); nothing else reaches a route. */
const PAGE_METHODS = new Set(["GET", "HEAD", "POST"]);
const ALLOW_HEADER = [...PAGE_METHODS].join(", ");
/** What a browser's form sends, with or without JavaScript: the only bodies page actions read. */
const FORM_CONTENT_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

export function pageBodyLimitBytes(pathname: string): number {
  // JavaScript's form posts go to the page's data URL ("/my/profile/edit/_.data"); the limit is the page's.
  return LARGER_PAGE_BODY_LIMITS_BYTES.get(pathname.replace(/_?\.data$/, "")) ?? PAGE_BODY_LIMIT_BYTES;
}

export interface PageLaneOptions {
  build: Build;
  mode: "development" | "production";
  /** Our public origin: the base of every URL React Router sees, whatever the Host header says (or lacks). */
  origin: string;
  contextFor: RequestContextFactory;
}

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

/**
 * The pages' way into React Router, in place of @react-router/express's handler: one place that checks what every page
 * route would otherwise have to, before any route runs, so bad input gets a 4xx and never a 500. A page is read with
 * GET or HEAD and posted to with a form: other methods get 405, other bodies 415, broken multipart 400, and a body is
 * read by streamed count up to its page's limit (413 past it, the connection then closed), so an action's
 * request.formData() can neither fail nor buffer an unbounded upload. The URL comes from our configured origin, so a
 * missing or malformed Host header (HTTP/1.0) cannot fail the request and a forged one cannot reach the app.
 */
export function createPageLane(options: PageLaneOptions): RequestHandler {
  const handleRequest = createRequestHandler(narrowBuild(options.build, pageRoutesOf), options.mode);

  async function refusalOrBody(
    req: IncomingMessage,
    url: URL,
  ): Promise<Refusal | Buffer<ArrayBuffer> | "gone" | undefined> {
    const method = req.method ?? "GET";
    if (!PAGE_METHODS.has(method)) {
      return { status: 405, reason: "method not allowed", headers: { Allow: ALLOW_HEADER } };
    }
    if (method !== "POST") return undefined;
    const contentType = req.headers["content-type"] ?? "";
    if (!FORM_CONTENT_TYPES.has(mediaTypeOf(contentType))) return { status: 415, reason: "not a form post" };
    const body = await readBody(req, pageBodyLimitBytes(url.pathname));
    if (body === "too large") return { status: 413, reason: "body over the page limit" };
    if (body === "gone" || mediaTypeOf(contentType) !== "multipart/form-data") return body;
    // Parsed once here (the body is bounded by now) so that a broken multipart body is the client's 400, not an action's 500.
    try {
      await new Request(url, { method, headers: { "Content-Type": contentType }, body }).formData();
    } catch {
      return { status: 400, reason: "malformed multipart body" };
    }
    return body;
  }

  const pageLane: RequestHandler = async (req, res, next) => {
    try {
      const url = requestUrl(options.origin, req.originalUrl);
      if (!url) return refuse(req, res, { status: 400, reason: "malformed request target" });
      const outcome = await refusalOrBody(req, url);
      if (outcome === "gone") return;
      if (outcome && !Buffer.isBuffer(outcome)) return refuse(req, res, outcome);
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
      await send(res, await handleRequest(request, await options.contextFor(res.locals.requestInfo)));
    } catch (error) {
      next(error);
    }
  };
  return pageLane;
}

/**
 * The last word on errors Express or a page lane passed on: a client's error (a malformed escape in a static
 * file's path) keeps its 4xx, anything else is a 500; either way one structured log line, never a raw stack trace
 * on stderr (Express's default handler prints one).
 */
export const answerUnhandledError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  const status = httpStatusOf(error);
  const requestId = res.locals.requestInfo?.requestId;
  if (status < 500)
    logger.warn({ requestId, status, reason: String((error as Error)?.message ?? error) }, "request refused");
  else logger.error({ err: error, requestId }, "request failed");
  if (res.headersSent) return void res.destroy();
  res
    .status(status)
    .type("text/plain")
    .send(STATUS_CODES[status] ?? "Error");
};

function httpStatusOf(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 600 ? status : 500;
}

function refuse(req: ExpressRequest, res: ExpressResponse, refusal: Refusal) {
  logger.warn(
    { requestId: res.locals.requestInfo?.requestId, status: refusal.status, reason: refusal.reason },
    "page request refused",
  );
  // Whatever is left of a body we stopped reading is not worth draining: the connection closes after the answer.
  if (!req.complete) res.setHeader("Connection", "close");
  res
    .status(refusal.status)
    .set(refusal.headers ?? {})
    .type("text/plain")
    .send(REFUSAL_TEXT[refusal.status]);
}

/**
 * The URL React Router sees: our origin and the request target as sent (dot segments and all: the canonical
 * redirect and the routes deal with the path). Null for targets that are no path: "*", absolute forms.
 */
function requestUrl(origin: string, target: string): URL | null {
  if (!target.startsWith("/")) return null;
  try {
    return new URL(`${origin}${target}`);
  } catch {
    return null;
  }
}

/** "multipart/form-data; boundary=x" → "multipart/form-data". */
function mediaTypeOf(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

async function send(res: ExpressResponse, response: Response) {
  if (res.destroyed || res.writableEnded) return void (await response.body?.cancel());
  res.statusMessage = response.statusText;
  res.status(response.status);
  for (const [name, value] of response.headers) res.append(name, value);
  if (!response.body) return void res.end();
  await writeBody(response.body, res);
}
