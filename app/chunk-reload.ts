/** A failed chunk load (usually a deploy replaced the files) reloads the page, at most once a minute. */
export const CHUNK_RELOAD_GUARD_MS = 60_000;
const STORAGE_KEY = "chunk-reload-at";

export function shouldReloadAfterChunkFailure(nowMs: number, lastReloadAtMs: number | null): boolean {
  return lastReloadAtMs === null || nowMs - lastReloadAtMs >= CHUNK_RELOAD_GUARD_MS;
}

function isChunkLoadError(reason: unknown): boolean {
  const message = reason instanceof Error ? reason.message : String(reason);
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported/i.test(
    message,
  );
}

export function installChunkReloadGuard(win: Window): void {
  const reloadOnce = (event: Event) => {
    const stored = win.sessionStorage.getItem(STORAGE_KEY);
    const now = Date.now();
    if (!shouldReloadAfterChunkFailure(now, stored === null ? null : Number(stored))) return;
    event.preventDefault();
    win.sessionStorage.setItem(STORAGE_KEY, String(now));
    win.location.reload();
  };
  win.addEventListener("vite:preloadError", reloadOnce);
  win.addEventListener("unhandledrejection", (event) => {
    if (isChunkLoadError(event.reason)) reloadOnce(event);
  });
}
