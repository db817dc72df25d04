import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { useEffect, useRef, useState } from "react";
import { Form, useFetcher, useNavigation } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "../button";
import { assertPasskey, isCancelledCeremony, usePasskeySupport } from "./passkey-ceremony";

type OptionsReply = { requestOptions?: PublicKeyCredentialRequestOptionsJSON; error?: string };

/**
 * "Sign in with a passkey" on the sign-in page. Cognito's passkey sign-in (USER_AUTH) needs the user name before it
 * issues a challenge, so the member types the address first (the field `emailInputId`); the script then asks the
 * page's action for the challenge, lets the browser use the passkey, and posts its JSON result in a hidden input.
 * Without JavaScript, the section says passkeys need it and the password form above is the way in. Texts: "passkeys".
 */
export function PasskeySignInButton({ emailInputId }: { emailInputId: string }) {
  const { t } = useTranslation("passkeys");
  const support = usePasskeySupport();
  const fetcher = useFetcher<OptionsReply>();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  const credentialRef = useRef<HTMLInputElement>(null);
  const handledOptions = useRef<unknown>(null);
  const [problem, setProblem] = useState<"toasts.cancelled" | "errors.refused" | null>(null);

  const requestOptions = fetcher.data?.requestOptions;
  useEffect(() => {
    if (!requestOptions || handledOptions.current === requestOptions) return;
    handledOptions.current = requestOptions;
    assertPasskey(requestOptions).then(
      (credential) => {
        if (!credentialRef.current || !formRef.current) return;
        credentialRef.current.value = credential;
        formRef.current.requestSubmit();
      },
      (error: unknown) => setProblem(isCancelledCeremony(error) ? "toasts.cancelled" : "errors.refused"),
    );
  }, [requestOptions]);

  if (support === "unknown") return <p className="notice">{t("signIn.needsJavaScript")}</p>;
  if (support === "no") return null;
  const serverProblem = fetcher.state === "idle" && !problem ? fetcher.data?.error : undefined;
  return (
    <Form method="post" ref={formRef} className="passkey-sign-in">
      <input type="hidden" name="intent" value="passkey-sign-in" />
      <input type="hidden" name="credential" ref={credentialRef} />
      <p className="form-field__hint">{t("signIn.hint")}</p>
      <Button
        type="button"
        variant="secondary"
        block
        pending={fetcher.state !== "idle" || navigation.state === "submitting"}
        onClick={() => {
          setProblem(null);
          const email = document.getElementById(emailInputId);
          const value = email instanceof HTMLInputElement ? email.value : "";
          void fetcher.submit({ intent: "passkey-options", email: value }, { method: "post" });
        }}
      >
        {t("signIn.button")}
      </Button>
      {problem || serverProblem ? <p role="alert">{problem ? t(problem) : serverProblem}</p> : null}
    </Form>
  );
}
