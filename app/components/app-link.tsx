import { createElement, useSyncExternalStore } from "react";
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
export function AppLinkInBrowser(props: LinkProps) {
  const prefetch = useSyncExternalStore(subscribe, getPrefetchPolicy, getServerPolicy);
  return <Link prefetch={prefetch} {...props} />;
}

/** An empty, `.` or `..` segment, or a backslash: what a router resolves in a path (which here starts with `/`). */
const RESOLVED_BY_ROUTER = /\/\/|\\|\/\.\.?(?:\/|$)/;

/** Whether <Link> would render `to` as it is: a path of this app that a router leaves alone, with no bare `?` or `#` to drop. */
function isPlainAppPath(to: string): boolean {
  const hashAt = to.indexOf("#");
  const beforeHash = hashAt < 0 ? to : to.slice(0, hashAt);
  const searchAt = beforeHash.indexOf("?");
  const pathname = searchAt < 0 ? beforeHash : beforeHash.slice(0, searchAt);
  return (
    pathname.startsWith("/") &&
    !RESOLVED_BY_ROUTER.test(pathname) &&
    beforeHash.length - pathname.length !== 1 &&
    to.length - beforeHash.length !== 1
  );
}

/** The props the plain anchor takes as they are; with any other, <Link> renders the link. */
const ANCHOR_PROPS = new Set(["className", "rel", "children", "title", "id", "lang", "hrefLang", "aria-current"]);

/**
 * What <Link> renders on the server for a path of this app, without the hooks it needs only in the browser (its
 * click handler's navigator, prefetching, resolving a relative `to`): the same anchor, so hydration finds it as
 * the browser's <Link> renders it (tests/unit/app-link.test.ts compares the two). A page's frame has about twenty
 * links, and <Link>'s hooks for them cost about 6 % of a view's CPU (tests/bench/README.md: Links on the server).
 */
export function AppLinkOnServer(props: LinkProps) {
  const { to } = props;
  if (typeof to !== "string" || !isPlainAppPath(to)) return <Link {...props} />;
  // Built key by key: on Node 20 a spread followed by more keys makes a hidden class per object (tests/bench/README.md).
  const anchor: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    if (name === "to" || name === "reloadDocument") continue;
    if (!ANCHOR_PROPS.has(name)) return <Link {...props} />;
    anchor[name] = value;
  }
  anchor.href = to;
  anchor["data-discover"] = "true";
  return createElement("a", anchor);
}

/** The server's build renders the plain anchor; the browser's, React Router's <Link> (Vite sets `SSR` per build). */
export const AppLink = import.meta.env.SSR ? AppLinkOnServer : AppLinkInBrowser;
