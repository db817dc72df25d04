import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { type RefObject, useRef, useState, useSyncExternalStore } from "react";

/*
 * The browser half of passkeys. SimpleWebAuthn runs navigator.credentials with the JSON shapes Cognito speaks; it is
 * imported only when the member presses a passkey button, so no page loads it up front (the JavaScript budget). The
 * options come from our passkey endpoints by a plain fetch (no router fetcher, whose code every page would carry),
 * and the result goes back in a plain form post, as Kratos does: the server does every check, through Cognito.
 */

/** What a passkey endpoint answers the script: the ceremony's options, a message, or the page to go to first. */
export type PasskeyOptionsReply<Options> = { options: Options } | { error: string } | { redirectTo: string };

/** Runs navigator.credentials.create for Cognito's creation options: the RegistrationResponseJSON, as text. */
export async function createPasskey(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<string> {
  const { startRegistration } = await import("@simplewebauthn/browser");
  return JSON.stringify(await startRegistration({ optionsJSON }));
}

/** Runs navigator.credentials.get for Cognito's request options: the AuthenticationResponseJSON, as text. */
export async function assertPasskey(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<string> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  return JSON.stringify(await startAuthentication({ optionsJSON }));
}

/** The member closed the browser's passkey dialog, or it timed out: nothing to report but "try again". */
function isCancelledCeremony(error: unknown): boolean {
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

/** A problem to show beside the button: a key of "passkeys", or the server's message, already translated. */
export type PasskeyProblem = { key: "toasts.cancelled" | "errors.refused" } | { text: string };

/**
 * One passkey button: `start` posts `fields` to `endpoint` for the ceremony's options, runs `ceremony` in the browser,
 * puts its JSON result in the form's hidden input "credential" and submits the form (a document navigation).
 */
export function usePasskeyButton<Options>(
  endpoint: string,
  ceremony: (options: Options) => Promise<string>,
): {
  formRef: RefObject<HTMLFormElement | null>;
  busy: boolean;
  problem: PasskeyProblem | null;
  start: (fields: Record<string, string>) => Promise<void>;
} {
  const formRef = useRef<HTMLFormElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<PasskeyProblem | null>(null);
  async function start(fields: Record<string, string>) {
    setProblem(null);
    setBusy(true);
    try {
      const response = await fetch(endpoint, { method: "POST", body: new URLSearchParams(fields) });
      const reply = (await response.json()) as PasskeyOptionsReply<Options>;
      if ("redirectTo" in reply) return window.location.assign(reply.redirectTo);
      if ("error" in reply) {
        setProblem({ text: reply.error });
        return setBusy(false);
      }
      const credential = await ceremony(reply.options);
      const form = formRef.current;
      const input = form?.elements.namedItem("credential");
      if (!form || !(input instanceof HTMLInputElement)) return;
      input.value = credential;
      form.submit();
    } catch (error) {
      // Cancelled, refused by the authenticator (one already registered here, say) or no answer: try again.
      setProblem({ key: isCancelledCeremony(error) ? "toasts.cancelled" : "errors.refused" });
      setBusy(false);
    }
  }
  return { formRef, busy, problem, start };
}
