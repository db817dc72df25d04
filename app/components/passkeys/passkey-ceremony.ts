import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { useSyncExternalStore } from "react";

/*
 * The browser half of passkeys: SimpleWebAuthn runs navigator.credentials with the JSON shapes Cognito speaks. It is
 * imported only when the member presses a passkey button, so no page loads it up front (the JavaScript budget).
 */

/** The browser's JSON result of a ceremony, which the page's form posts in a hidden input for Cognito to check. */
export async function createPasskey(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<string> {
  const { startRegistration } = await import("@simplewebauthn/browser");
  return JSON.stringify(await startRegistration({ optionsJSON }));
}

export async function assertPasskey(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<string> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  return JSON.stringify(await startAuthentication({ optionsJSON }));
}

/** The member closed the browser's passkey dialog, or it timed out: nothing to report but "try again". */
export function isCancelledCeremony(error: unknown): boolean {
  return error instanceof Error && (error.name === "NotAllowedError" || error.name === "AbortError");
}

const subscribeNever = () => () => {};

/**
 * Whether this browser can make and use passkeys: "unknown" on the server and before hydration (so the page says
 * passkeys need JavaScript until the script runs), then "yes" or "no".
 */
export function usePasskeySupport(): "unknown" | "yes" | "no" {
  return useSyncExternalStore(
    subscribeNever,
    () => (typeof window.PublicKeyCredential === "function" ? "yes" : "no"),
    () => "unknown",
  );
}
