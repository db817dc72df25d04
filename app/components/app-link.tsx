import { useSyncExternalStore } from "react";
import { Link, type LinkProps } from "react-router";

type PrefetchPolicy = "none" | "viewport";

/** The Network Information API: Chromium only, so every field is optional. */
type NetworkInformation = EventTarget & { saveData?: boolean; effectiveType?: string };

function getConnection(): NetworkInformation | undefined {
  return (navigator as Navigator & { connection?: NetworkInformation }).connection;
}

/**
 * Prefetching spends the visitor's data on pages they may never open: skip it when they asked to save data, on
 * 2g-class connections, where every byte is slow, and offline, where it can only fail.
 */
function getPrefetchPolicy(): PrefetchPolicy {
  const connection = getConnection();
  const slow = connection?.effectiveType === "2g" || connection?.effectiveType === "slow-2g";
  return navigator.onLine && !connection?.saveData && !slow ? "viewport" : "none";
}

function subscribe(onChange: () => void): () => void {
  const connection = getConnection();
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  connection?.addEventListener("change", onChange);
  return () => {
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
    connection?.removeEventListener("change", onChange);
  };
}

// The server cannot see the connection, so it renders "none"; hydration then switches to the client's answer.
const getServerPolicy = (): PrefetchPolicy => "none";

/** A React Router <Link> that prefetches its page when it scrolls into view, unless the connection is poor. */
export function AppLink(props: LinkProps) {
  const prefetch = useSyncExternalStore(subscribe, getPrefetchPolicy, getServerPolicy);
  return <Link prefetch={prefetch} {...props} />;
}
