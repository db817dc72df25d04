import type { RequestHandler, Response as ExpressResponse } from "express";
import type { LargeBodyGate } from "./app-context";
import { logger } from "~/integrations/logger.server";
import { isAllowedOrigin } from "./csrf";
import { headersOf } from "./api-checks";
import { readBody } from "./node-request";

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

export interface PageCheckOptions {
  /** Our public origin: what a post's Origin must be, and the base of the URL React Router sees. */
  origin: string;
  /**
   * Pages whose forms may post more than PAGE_BODY_LIMIT_BYTES, by path in both languages, with their limits: taken
   * only from whom `largeBodyGate` lets through (staff), asked once a body passes PAGE_BODY_LIMIT_BYTES.
   */
  largerBodyLimits: ReadonlyMap<string, number>;
  largeBodyGate: LargeBodyGate;
}

const REFUSAL_TEXT = {
  400: "Bad Request",
  403: "Forbidden: this request came from another site.",
  405: "Method Not Allowed",
  413: "Content Too Large: this form sent more than a page accepts.",
  415: "Unsupported Media Type: pages accept form posts only.",
} as const;

/**
 * What every page request is checked for before React Router runs a route, so that bad input gets a 4xx and never
 * a 500: a state-changing request from another site is 403 (the origin check, app/server/csrf.ts); a page is read
 * with GET or HEAD and posted to with a form, so other methods get 405, other bodies 415, broken multipart 400; a
 * body is read by streamed count up to its page's limit (413 past it, the connection then closed), before any
 * authentication, so an action's `request.formData()` can neither fail nor buffer an unbounded upload.
 */
export function createPageChecks(options: PageCheckOptions): RequestHandler {
  return async (req, res, next) => {
    const refuse = (status: keyof typeof REFUSAL_TEXT, reason: string, headers: Record<string, string> = {}) => {
      logger.warn({ requestId: res.locals.requestInfo.requestId, status, reason }, "page request refused");
      // Whatever is left of a body we stopped reading is not worth draining: the connection closes after the answer.
      if (!req.complete) res.setHeader("Connection", "close");
      sendText(res, status, REFUSAL_TEXT[status], headers);
    };
    if (!isAllowedOrigin(req.method, { get: (name) => req.get(name) }, options.origin)) {
      return refuse(403, "cross-site request");
    }
    if (!PAGE_METHODS.has(req.method)) return refuse(405, "method not allowed", { Allow: ALLOW_HEADER });
    if (req.method !== "POST") return next();
    const contentType = req.get("Content-Type") ?? "";
    const mediaType = mediaTypeOf(contentType);
    if (!FORM_CONTENT_TYPES.has(mediaType)) return refuse(415, "not a form post");
    const url = new URL(req.originalUrl, options.origin);
    const limit = pageBodyLimitBytes(url.pathname, options.largerBodyLimits);
    const larger = {
      bytes: limit,
      allowed: async () => {
        const request = new Request(url, { headers: headersOf(req.headers) });
        return !(await options.largeBodyGate(res.locals.requestInfo, request, "page"));
      },
    };
    const body = await readBody(req, PAGE_BODY_LIMIT_BYTES, limit > PAGE_BODY_LIMIT_BYTES ? larger : undefined);
    if (body === "gone") return;
    if (body === "too large") return refuse(413, "body over the page limit");
    if (body === "refused") return refuse(413, "large body from someone who is not staff");
    if (mediaType === "multipart/form-data") {
      // Parsed once here (the body is bounded by now) so that a broken multipart body is the client's 400, not an
      // action's 500.
      try {
        await new Request(url, { method: "POST", headers: { "Content-Type": contentType }, body }).formData();
      } catch {
        return refuse(400, "malformed multipart body");
      }
    }
    next();
  };
}

/** A short plain-text answer (a refusal or an error): the security headers, set earlier, stay. */
export function sendText(res: ExpressResponse, status: number, text: string, headers: Record<string, string> = {}) {
  res.status(status).set(headers).type("text/plain; charset=utf-8").send(text);
}

/** "multipart/form-data; boundary=x" → "multipart/form-data". */
function mediaTypeOf(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}
