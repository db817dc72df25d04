import { useTranslation } from "~/i18n/use-translation";
import { Button } from "../button";
import { assertPasskey, usePasskeyButton, usePasskeySupport } from "./passkey-ceremony";

/**
 * "Sign in with a passkey" on the sign-in page. Cognito's passkey sign-in (USER_AUTH) needs the user name before it
 * issues a challenge, so the member types the address first (the field `emailInputId`); the script then asks
 * `endpoint` for the challenge, lets the browser use the passkey, and posts its JSON result there in a hidden input.
 * Without JavaScript, the section says passkeys need it and the password form above is the way in. Texts: "passkeys".
 */
export function PasskeySignInButton({ endpoint, emailInputId }: { endpoint: string; emailInputId: string }) {
  const { t } = useTranslation("passkeys");
  const support = usePasskeySupport();
  const { formRef, busy, problem, start } = usePasskeyButton(endpoint, assertPasskey);
  if (support === "unknown") return <p className="notice">{t("signIn.needsJavaScript")}</p>;
  if (support === "no") return null;
  return (
    <form method="post" action={endpoint} ref={formRef} className="passkey-sign-in">
      <input type="hidden" name="intent" value="passkey-sign-in" />
      <input type="hidden" name="credential" />
      <p className="form-field__hint">{t("signIn.hint")}</p>
      <Button
        type="button"
        variant="secondary"
        block
        pending={busy}
        onClick={() => {
          const email = document.getElementById(emailInputId);
          void start({ intent: "passkey-options", email: email instanceof HTMLInputElement ? email.value : "" });
        }}
      >
        {t("signIn.button")}
      </Button>
      {problem ? <p role="alert">{"key" in problem ? t(problem.key) : problem.text}</p> : null}
    </form>
  );
}
