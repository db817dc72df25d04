import type { SubmissionResult } from "@conform-to/react";
import { useEffect } from "react";

/**
 * Empties a password field when the server turned the form down. Without JavaScript the new page never has
 * it (the server leaves it out); with JavaScript the page stays, and Conform leaves the typed value in place.
 */
export function useClearAfterServerError(lastResult: SubmissionResult<string[]> | undefined, fieldId: string) {
  useEffect(() => {
    if (lastResult?.status !== "error") return;
    const input = document.getElementById(fieldId);
    if (input instanceof HTMLInputElement) input.value = "";
  }, [lastResult, fieldId]);
}
