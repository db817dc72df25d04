import { createContext, type RouterContext } from "react-router";

/** What the HTTP layer learned about a request before React Router saw it. */
export interface RequestInfo {
  requestId: string;
  /** Per-response CSP nonce; every inline script the app renders carries it (empty in development). */
  nonce: string;
  /** Client IP, from the socket or from a configured trusted proxy header only. */
  clientIp: string;
}

// The HTTP server and the React Router build load this file as two separate modules (two module graphs),
// so a key the server fills in lives on globalThis: both copies must hand React Router the same key.
const registry = globalThis as unknown as Record<symbol, RouterContext<unknown> | undefined>;

/** A router context key shared by both module graphs, registered under `name`. */
export function sharedContext<T>(name: string, defaultValue?: T): RouterContext<T> {
  const key = Symbol.for(`member-account.${name}`);
  return (registry[key] ??= createContext<T>(defaultValue) as RouterContext<unknown>) as RouterContext<T>;
}

export const requestInfoContext = sharedContext<RequestInfo>("request-info");
