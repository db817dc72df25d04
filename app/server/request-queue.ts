import type { ServerResponse } from "node:http";

/**
 * Requests start one per turn of the event loop, in arrival order, and at most `inProgress` (REQUEST_QUEUE_IN_PROGRESS)
 * are in progress at once. Every request shares the one event loop, and libuv accepts at most one new connection per
 * turn (libuv#3696): when all the requests read in one turn started at once, that turn carried all their renders, so
 * under a burst of connections new ones waited seconds in the kernel's accept queue while each handler's own time
 * stayed short (tests/bench/README.md, saturation). Started one per turn, each turn stays short. A request that holds
 * its place longer than `holdLimitMs` (REQUEST_QUEUE_HOLD_MS) goes on without it.
 */
export interface RequestQueue {
  /**
   * Calls `start` on a later turn of the event loop, once the requests before it have started and fewer than the
   * cap are in progress.
   */
  admit(res: ServerResponse, start: () => void): void;
  /** Requests holding a place and requests waiting for one, for the metrics and the tests. */
  readonly inProgress: number;
  readonly waiting: number;
}

export function createRequestQueue(options: { inProgress: number; holdLimitMs: number }): RequestQueue {
  const { inProgress: limit, holdLimitMs } = options;
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
