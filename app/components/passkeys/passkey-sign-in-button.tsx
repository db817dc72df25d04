import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "../button";
import {
  assertPasskey,
  cancelAutofillPasskey,
  pickAutofillPasskey,
  usePasskeyCeremony,
  usePasskeySupport,
  useSubmitWhenIdle,
} from "./passkey-ceremony";

/**
 * Passkey autofill on the e-mail field, where the browser offers it (conditional mediation): "available" once the
 * browser said so, so the field takes `autocomplete="username webauthn"` (before that, and on other browsers, plain
 * "username"); "started" once the conditional request waits for a pick. A pick posts the passkey's credential id as
 * `passkey-autofill`; the action answers Cognito's request options for that passkey's member, which the button's
 * ceremony below then uses, as after a press of the button. Nothing is loaded until the browser has said yes.
 */
export function usePasskeyAutofill(): "no" | "available" | "started" {
  const submitWhenIdle = useSubmitWhenIdle();
  const [state, setState] = useState<"no" | "available" | "started">("no");
  useEffect(() => {
    let live = true;
    const check = window.PublicKeyCredential?.isConditionalMediationAvailable;
    if (typeof check !== "function") return;
    check.call(window.PublicKeyCredential).then(
      (available) => {
        if (live && available) setState("available");
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, []);
  const started = useRef(false);
  useEffect(() => {
    if (state !== "available" || started.current) return;
    started.current = true;
    setState("started");
    pickAutofillPasskey().then(
      (credentialId) => submitWhenIdle({ intent: "passkey-autofill", credentialId }),
      // Aborted by the button's ceremony or by leaving the page, or refused: the password and the button remain.
      () => {},
    );
  }, [state, submitWhenIdle]);
  useEffect(
    () => () => {
      if (started.current) void cancelAutofillPasskey();
    },
    [],
  );
  return state;
}

/**
 * "Log in with a passkey", inside the sign-in form. Cognito's passkey sign-in (USER_AUTH) needs the user name before
 * it issues a challenge, so the button posts the form with the address typed (the password is not needed, nor
 * checked); the action answers Cognito's request options (`requestOptions`) or a message (`refusal`, translated);
 * the browser uses the passkey and its JSON result is posted back. Without JavaScript, the form says passkeys need
 * it and the password is the way in. Texts: "passkeys".
 */
export function PasskeySignInButton({
  requestOptions,
  refusal,
  pending,
}: {
  requestOptions: PublicKeyCredentialRequestOptionsJSON | undefined;
  refusal: string | undefined;
  pending: boolean;
}) {
  const { t } = useTranslation("passkeys");
  const support = usePasskeySupport();
  const problem = usePasskeyCeremony(requestOptions, assertPasskey, "passkey-sign-in");
  if (support === "unknown") return <p className="notice">{t("signIn.needsJavaScript")}</p>;
  if (support === "no") return null;
  return (
    <div className="passkey-sign-in">
      <p className="form-field__hint">{t("signIn.hint")}</p>
      <Button name="intent" value="passkey-options" variant="secondary" formNoValidate pending={pending} block>
        {t("signIn.button")}
      </Button>
      {problem || refusal ? <p role="alert">{problem ? t(problem) : refusal}</p> : null}
    </div>
  );
}
