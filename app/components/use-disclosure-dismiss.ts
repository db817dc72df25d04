import { type RefObject, useEffect, useRef } from "react";
import { useLocation } from "react-router";

/**
 * Adds the dismissals a <details> menu cannot do by itself: it closes on every navigation (the new page must not
 * open under a menu), on Escape (focus goes back to its button) and on a click outside it. Opening and closing
 * by its own button needs no JavaScript; this only runs once the page is hydrated.
 */
export function useDisclosureDismiss(ref: RefObject<HTMLDetailsElement | null>) {
  const { key } = useLocation();
  const shownKey = useRef(key);

  // Only a change of location closes it: at hydration the menu may already be open, by a click before JS loaded.
  useEffect(() => {
    if (shownKey.current === key) return;
    shownKey.current = key;
    if (ref.current) ref.current.open = false;
  }, [key, ref]);

  useEffect(() => {
    function close(details: HTMLDetailsElement, returnFocus: boolean) {
      details.open = false;
      if (returnFocus) details.querySelector("summary")?.focus();
    }
    function onKeyDown(event: KeyboardEvent) {
      const details = ref.current;
      if (event.key === "Escape" && details?.open) close(details, true);
    }
    function onPointerDown(event: PointerEvent) {
      const details = ref.current;
      if (details?.open && event.target instanceof Node && !details.contains(event.target)) close(details, false);
    }
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    };
  }, [ref]);
}
