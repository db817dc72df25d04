import { createContext, type RouterContext } from "react-router";

/** What the HTTP layer learned about a request before React Router saw it. */
export interface RequestInfo {
  requestId: string;
  /** Per-response CSP nonce; every inline script the app renders carries it (empty in development). */
  nonce: string;
  /** Client IP, from the socket or from a configured trusted proxy header only. */
  clientIp: string;
}

// The HTTP server (run by tsx) and the React Router build (bundled by Vite) load this file as two separate
// modules, so the context key lives on globalThis: both copies must hand React Router the same key.
const KEY = Symbol.for("member-account.request-info");
const registry = globalThis as unknown as Record<symbol, RouterContext<RequestInfo> | undefined>;
export const requestInfoContext: RouterContext<RequestInfo> = (registry[KEY] ??= createContext<RequestInfo>());
