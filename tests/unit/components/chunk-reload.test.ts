import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { installChunkReloadGuard } from "~/chunk-reload";

const ONE_MINUTE_MS = 60_000;

/** Just enough of a browser window for the guard: events, session storage that survives the reload, and reload. */
function fakeWindow() {
  const storage = new Map<string, string>();
  const events = new EventTarget();
  const reload = vi.fn();
  const win = Object.assign(events, {
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
    },
    location: { reload },
  });
  installChunkReloadGuard(win as unknown as Window);
  /** A failed chunk load as Vite reports it; true when the guard took the event over (and so reloaded). */
  const failChunkLoad = () => !events.dispatchEvent(new Event("vite:preloadError", { cancelable: true }));
  /** An unhandled promise rejection with this reason. */
  const reject = (reason: unknown) =>
    events.dispatchEvent(Object.assign(new Event("unhandledrejection", { cancelable: true }), { reason }));
  return { reload, failChunkLoad, reject };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-21T03:00:00Z"));
});

afterEach(() => {
  vi.useRealTimers();
});

test("a chunk failure reloads at most once a minute", () => {
  const { reload, failChunkLoad } = fakeWindow();
  expect(failChunkLoad()).toBe(true);
  expect(reload).toHaveBeenCalledTimes(1);

  // The reloaded page fails again just inside the minute: no second reload, the error surfaces instead.
  vi.advanceTimersByTime(ONE_MINUTE_MS - 1);
  expect(failChunkLoad()).toBe(false);
  expect(reload).toHaveBeenCalledTimes(1);

  // A minute after the reload, a new deploy may have replaced the files again: reload once more.
  vi.advanceTimersByTime(1);
  expect(failChunkLoad()).toBe(true);
  expect(reload).toHaveBeenCalledTimes(2);
});

test("an unhandled rejection reloads only when it is a failed dynamic import", () => {
  const { reload, reject } = fakeWindow();
  reject(new Error("network is down"));
  expect(reload).not.toHaveBeenCalled();
  reject(new TypeError("Failed to fetch dynamically imported module: /assets/profile-3f2a.js"));
  expect(reload).toHaveBeenCalledTimes(1);
});
