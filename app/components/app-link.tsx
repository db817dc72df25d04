import { useSyncExternalStore } from "react";
import { Link, type LinkProps } from "react-router";

type PrefetchPolicy = "none" | "viewport";

/** The Network Information API: Chromium only, so every field is optional. */
type NetworkInformation = EventTarget & { saveData?: boolean; effectiveType?: string };

function getConnection(): NetworkInformation | undefined {
  return (navigator as Navigator & { connection?: NetworkInformation }).connection;
}

/** The spec's prefetch idle timeout: how long a loaded document waits before its links may prefetch. */
const PREFETCH_IDLE_MS = 2000;

let idleWaitStarted = false;
let idle = false;
const idleListeners = new Set<() => void>();

/**
 * Once per document: 2000 ms after the page's links are hydrated, then the browser's next idle moment (where it has
 * requestIdleCallback), so prefetches never compete with the page's own scripts, images and hydration.
 */
function startIdleWait() {
  if (idleWaitStarted) return;
  idleWaitStarted = true;
  setTimeout(() => {
    const markIdle = () => {
      idle = true;
      for (const listener of idleListeners) listener();
    };
    if ("requestIdleCallback" in window) window.requestIdleCallback(markIdle);
    else markIdle();
  }, PREFETCH_IDLE_MS);
}

/**
 * Prefetching spends the visitor's data on pages they may never open: only once the page is idle, and never when
 * they asked to save data, on 2g-class connections, where every byte is slow, or offline, where it can only fail.
 */
function getPrefetchPolicy(): PrefetchPolicy {
  const connection = getConnection();
  const slow = connection?.effectiveType === "2g" || connection?.effectiveType === "slow-2g";
  return idle && navigator.onLine && !connection?.saveData && !slow ? "viewport" : "none";
}

function subscribe(onChange: () => void): () => void {
  const connection = getConnection();
  idleListeners.add(onChange);
  startIdleWait();
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  connection?.addEventListener("change", onChange);
  return () => {
    idleListeners.delete(onChange);
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
    connection?.removeEventListener("change", onChange);
  };
}

// The server cannot see the connection, so it renders "none"; hydration then switches to the client's answer.
const getServerPolicy = (): PrefetchPolicy => "none";

/**
 * A React Router <Link> that prefetches its page when it is in view, once the page has been idle (PREFETCH_IDLE_MS),
 * unless the connection is poor.
 */
export function AppLink(props: LinkProps) {
  const prefetch = useSyncExternalStore(subscribe, getPrefetchPolicy, getServerPolicy);
  return <Link prefetch={prefetch} {...props} />;
}
