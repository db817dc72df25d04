import { useSyncExternalStore } from "react";

const neverChanges = () => () => {};

/** False on the server and while hydrating (so hydration matches), true once the page is interactive. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
