import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useNavigation, useSubmit } from "react-router";

/*
 * The browser half of passkeys. SimpleWebAuthn runs navigator.credentials with the JSON shapes Cognito speaks; it is
 * imported only when the member has pressed a passkey button and the page's action answered the ceremony's options,
 * so no page loads it up front (the JavaScript budget). The result goes back in a post of the page's own action, as
 * Kratos does with a hidden input: the server does every check, through Cognito.
 */

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

/**
 * Passkey autofill: a conditional navigator.credentials.get, which lists this site's passkeys under the e-mail field
 * and resolves when the member picks one. Answers the picked passkey's credential id (base64url). The challenge is
 * the page's own random bytes, not Cognito's: Cognito issues a challenge only for a known USERNAME, so this assertion
 * is never verified and proves nothing; its id only says which member to ask Cognito's challenge for, and the second,
 * modal assertion over that challenge is the proof. The relying party is this page's host, as the pool's is
 * APP_ORIGIN's (app/integrations/cognito/pool-contract.server.ts).
 */
export async function pickAutofillPasskey(): Promise<string> {
  const { bufferToBase64URLString, startAuthentication } = await import("@simplewebauthn/browser");
  const challenge = bufferToBase64URLString(crypto.getRandomValues(new Uint8Array(32)).buffer);
  const picked = await startAuthentication({
    optionsJSON: { challenge, rpId: window.location.hostname, userVerification: "preferred", allowCredentials: [] },
    useBrowserAutofill: true,
  });
  return picked.rawId;
}

/** Ends a pending autofill request (the page is left), as the next ceremony would. */
export async function cancelAutofillPasskey(): Promise<void> {
  const { WebAuthnAbortService } = await import("@simplewebauthn/browser");
  WebAuthnAbortService.cancelCeremony();
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

/**
 * Posts a ceremony's result to the page's action, once the page's navigation is idle. A ceremony can end while the
 * post that answered its options is still reloading the page's data; a new submission then interrupts that
 * navigation, and React Router 7's single fetch leaves the interrupted requests' AbortErrors uncaught
 * (remix-run/react-router#14203; fix proposed in #14761). Waiting for the reload costs the member nothing.
 */
export function useSubmitWhenIdle(): (values: Record<string, string>) => void {
  const submit = useSubmit();
  const idle = useNavigation().state === "idle";
  const idleNow = useRef(idle);
  const waiting = useRef<Record<string, string> | null>(null);
  useEffect(() => {
    idleNow.current = idle;
    const values = waiting.current;
    if (!idle || !values) return;
    waiting.current = null;
    void submit(values, { method: "post" });
  }, [idle, submit]);
  return useCallback(
    (values: Record<string, string>) => {
      if (idleNow.current) void submit(values, { method: "post" });
      else waiting.current = values;
    },
    [submit],
  );
}

/** A problem to show beside the button, as a key of "passkeys". */
export type PasskeyProblem = "toasts.cancelled" | "errors.refused";

/**
 * Runs `ceremony` once for each `options` the page's action answers (a new answer per press of the button), then
 * posts its JSON result to the page's action as `credential` with `answerIntent`. Answers the problem of the latest
 * ceremony, if it failed: cancelled (the member closed the dialog, or it timed out) or refused by the authenticator
 * (one already registered there, say); either way the member may press the button again.
 */
export function usePasskeyCeremony<Options extends object>(
  options: Options | undefined,
  ceremony: (options: Options) => Promise<string>,
  answerIntent: string,
): PasskeyProblem | null {
  const submitWhenIdle = useSubmitWhenIdle();
  const handled = useRef<Options | undefined>(undefined);
  const [failed, setFailed] = useState<{ options: Options; problem: PasskeyProblem } | null>(null);
  useEffect(() => {
    if (!options || handled.current === options) return;
    handled.current = options;
    ceremony(options).then(
      (credential) => submitWhenIdle({ intent: answerIntent, credential }),
      (error: unknown) =>
        setFailed({ options, problem: isCancelledCeremony(error) ? "toasts.cancelled" : "errors.refused" }),
    );
  }, [options, ceremony, answerIntent, submitWhenIdle]);
  return failed && failed.options === options ? failed.problem : null;
}
