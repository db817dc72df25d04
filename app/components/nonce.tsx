import { createContext, useContext } from "react";

/** The response's CSP nonce, provided by entry.server; empty in the browser, which never needs it. */
export const NonceContext = createContext("");

export function useNonce(): string {
  return useContext(NonceContext);
}
