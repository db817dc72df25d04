import type { ServerResponse } from "node:http";

/**
 * How many requests are in progress at once; the rest wait in arrival order. Every request in progress shares the
 * one event loop, so when many progress together each turn of the loop carries all their work (renders, GC of their
 * live objects), and libuv accepts at most one new connection per turn (libuv#3696): under a burst of connections,
 * new ones then waited seconds in the kernel's accept queue while each handler's own time stayed short
 * (tests/bench/README.md, saturation). A few at a time keeps each turn short and the wait in arrival order.
 */
export const REQUESTS_IN_PROGRESS = 4;
/**
 * A request that holds its place longer than this is waiting on something else (Cognito, a slow client reading a
 * download), not using the CPU: it goes on without its place, so that it does not hold up the queue.
 */
export const PLACE_HOLD_LIMIT_MS = 500;

export interface RequestQueue {
  /** Calls `start` now if there is room, else once the requests before it have finished or left their place. */
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

  // One waiting request per turn of the event loop, from setImmediate: each turn then accepts a connection and
  // starts at most one render, however long the queue, so a burst of new connections is accepted within as many
  // short turns instead of one per turn that carries the whole queue's work.
  const scheduleStart = () => {
    if (startScheduled) return;
    startScheduled = true;
    setImmediate(startNext);
  };
  function startNext() {
    startScheduled = false;
    while (inProgress < limit && waiting.length > 0) {
      const next = waiting.shift()!;
      // A client who left while waiting: nothing to answer.
      if (next.res.destroyed) continue;
      begin(next.res, next.start);
      break;
    }
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
      if (inProgress < limit && waiting.length === 0) return begin(res, start);
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
