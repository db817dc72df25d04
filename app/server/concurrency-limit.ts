import type { RequestHandler, Response } from "express";

export interface ConcurrencyLimitOptions {
  /** Requests worked on at once (REQUESTS_IN_PROGRESS_MAX). */
  inProgress: number;
  /** Requests that may wait for a place (REQUESTS_WAITING_MAX); one more is answered 503 at once. */
  waiting: number;
  /** How long a request may wait for a place before it is answered 503 (REQUEST_WAIT_MAX_MS). */
  waitMs: number;
}

export interface ConcurrencyLimit {
  middleware: RequestHandler;
  /** For the metrics' gauges. */
  readonly inProgress: number;
  readonly waiting: number;
}

/** What a shed request's client is told to wait before trying again. */
const RETRY_AFTER_S = 1;

/**
 * At most `inProgress` requests in progress, the rest waiting in arrival order; past `waiting` waiting requests or
 * `waitMs` of waiting, a request is shed: 503 with Retry-After, so that an overloaded instance answers quickly and
 * the load balancer or client tries again, rather than letting every request slow down together. A request holds
 * its place until its response closes (a download, until its client has it all). Mounted after the health checks,
 * which never wait.
 */
export function createConcurrencyLimit(options: ConcurrencyLimitOptions, onShed: () => void): ConcurrencyLimit {
  const queue: Array<{ res: Response; start: () => void; timer: NodeJS.Timeout }> = [];
  let inProgress = 0;

  const shed = (res: Response) => {
    onShed();
    res.setHeader("Retry-After", String(RETRY_AFTER_S));
    res.setHeader("Connection", "close");
    res.status(503).type("text/plain").send("Service Unavailable: too many requests at once; try again shortly.");
  };
  const begin = (res: Response, start: () => void) => {
    inProgress++;
    res.once("close", () => {
      inProgress--;
      startNext();
    });
    start();
  };
  function startNext() {
    while (inProgress < options.inProgress && queue.length > 0) {
      const next = queue.shift()!;
      clearTimeout(next.timer);
      // A client who left while waiting: nothing to answer.
      if (!next.res.destroyed) begin(next.res, next.start);
    }
  }

  const middleware: RequestHandler = (_req, res, next) => {
    if (inProgress < options.inProgress) return begin(res, next);
    if (queue.length >= options.waiting) return shed(res);
    const entry = {
      res,
      start: () => next(),
      timer: setTimeout(() => {
        queue.splice(queue.indexOf(entry), 1);
        shed(res);
      }, options.waitMs),
    };
    queue.push(entry);
  };
  return {
    middleware,
    get inProgress() {
      return inProgress;
    },
    get waiting() {
      return queue.length;
    },
  };
}
