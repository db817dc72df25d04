import type { ServerResponse } from "node:http";

/**
 * Requests start one per turn of the event loop, in arrival order, and at most this many are in progress at once.
 * Every request shares the one event loop, and libuv accepts at most one new connection per turn (libuv#3696): when
 * all the requests read in one turn started at once, that turn carried all their renders, so under a burst of
 * connections new ones waited seconds in the kernel's accept queue while each handler's own time stayed short
 * (tests/bench/README.md, saturation). Started one per turn, each turn stays short; the cap bounds the live objects
 * of requests that wait on the database or Cognito, and what the garbage collector has to go through.
 */
export const REQUESTS_IN_PROGRESS = 32;
/**
 * A request that holds its place longer than this is waiting on something else (Cognito, a slow client reading a
 * download), not using the CPU: it goes on without its place, so that it does not hold up the queue.
 */
export const PLACE_HOLD_LIMIT_MS = 500;

export interface RequestQueue {
  /**
   * Calls `start` on a later turn of the event loop, once the requests before it have started and fewer than the
   * cap are in progress.
   */
  admit(res: ServerResponse, start: () => void): void;
  /** Requests holding a place and requests waiting for one, for the tests. */
  readonly inProgress: number;
  readonly waiting: number;
}

export function createRequestQueue(options: { inProgress?: number; holdLimitMs?: number } = {}): RequestQueue {
  const limit = options.inProgress ?? REQUESTS_IN_PROGRESS;
  const holdLimitMs = options.holdLimitMs ?? PLACE_HOLD_LIMIT_MS;
  const waiting: Array<{ res: ServerResponse; start: () => void }> = [];
  let inProgress = 0;
  let startScheduled = false;

  // From setImmediate, one per turn, never from the call that received or freed a place: requests read in one
  // turn, or one that finishes at once, would otherwise start together in that turn.
  const scheduleStart = () => {
    if (startScheduled) return;
    startScheduled = true;
    setImmediate(startNext);
  };
  function startNext() {
    startScheduled = false;
    let next = waiting.shift();
    // A client who left while waiting: nothing to answer.
    while (next?.res.destroyed) next = waiting.shift();
    if (next) begin(next.res, next.start);
    if (inProgress < limit && waiting.length > 0) scheduleStart();
  }
  function begin(res: ServerResponse, start: () => void) {
    inProgress++;
    let held = true;
    const leave = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      inProgress--;
      if (waiting.length > 0) scheduleStart();
    };
    const timer = setTimeout(leave, holdLimitMs).unref();
    res.once("close", leave);
    start();
  }

  return {
    admit(res, start) {
      waiting.push({ res, start });
      if (inProgress < limit) scheduleStart();
    },
    get inProgress() {
      return inProgress;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
