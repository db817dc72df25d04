import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "../button";
import { assertPasskey, usePasskeyCeremony, usePasskeySupport } from "./passkey-ceremony";

/**
 * "Sign in with a passkey", inside the sign-in form. Cognito's passkey sign-in (USER_AUTH) needs the user name before
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
