import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { Form, useNavigation } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { Button, buttonClassName } from "../button";
import { InputField } from "../form/fields";
import { createPasskey, usePasskeyCeremony, usePasskeySupport } from "./passkey-ceremony";

/** One passkey as the page lists it (my-security's loader). */
export interface PasskeyItem {
  credentialId: string;
  /** The member's name for it, or the browser and device it was made on. */
  label: string;
  /** ISO 8601. */
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * /my/security/'s passkeys: "Add a passkey" where the browser can make one (a script: WebAuthn has no form-only
 * way), and the list, whose rename and delete are plain forms; delete asks for confirmation first. `creationOptions`: the page's action's answer to
 * "Add a passkey". Texts: "passkeys".
 */
export function PasskeySection({
  passkeys,
  creationOptions,
  maxNameLength,
}: {
  passkeys: PasskeyItem[];
  creationOptions: PublicKeyCredentialCreationOptionsJSON | undefined;
  maxNameLength: number;
}) {
  const { t, i18n } = useTranslation("passkeys");
  // A fixed zone keeps the server's and the browser's text identical (no hydration mismatch).
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "Asia/Tokyo",
  });
  const time = (iso: string) => <time dateTime={iso}>{dateFormat.format(new Date(iso))}</time>;
  return (
    <section className="passkeys" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">{t("section.title")}</h2>
      <p>{t("section.lead")}</p>
      <PasskeyAddButton creationOptions={creationOptions} />
      {passkeys.length === 0 ? (
        <p>{t("section.empty")}</p>
      ) : (
        <ul className="passkey-list">
          {passkeys.map((passkey) => (
            <li key={passkey.credentialId} className="passkey-list__item">
              <p className="passkey-list__name">{passkey.label}</p>
              <dl className="passkey-list__times">
                <dt>{t("section.added")}</dt>
                <dd>{time(passkey.createdAt)}</dd>
                <dt>{t("section.lastUsed")}</dt>
                <dd>{passkey.lastUsedAt ? time(passkey.lastUsedAt) : t("section.never")}</dd>
              </dl>
              <Form method="post" className="passkey-list__rename">
                <input type="hidden" name="credentialId" value={passkey.credentialId} />
                <InputField
                  label={t("section.renameLabel", { name: passkey.label })}
                  hint={t("section.renameHint")}
                  inputProps={{
                    name: "name",
                    type: "text",
                    maxLength: maxNameLength,
                    autoComplete: "off",
                    inputMode: "text",
                    enterKeyHint: "done",
                  }}
                />
                <Button name="intent" value="passkey-rename" variant="secondary">
                  {t("section.rename")}
                </Button>
              </Form>
              {/* Deleting asks first: a disclosure, so the question needs no script. */}
              <details className="passkey-list__delete">
                <summary className={buttonClassName({ variant: "secondary" })}>{t("section.delete")}</summary>
                <Form method="post" className="passkey-list__confirm">
                  <p>{t("section.deleteConfirm", { name: passkey.label })}</p>
                  <input type="hidden" name="credentialId" value={passkey.credentialId} />
                  <Button
                    name="intent"
                    value="passkey-delete"
                    variant="danger"
                    aria-label={t("section.deleteLabel", { name: passkey.label })}
                  >
                    {t("section.deleteConfirmButton")}
                  </Button>
                </Form>
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * "Add a passkey" posts to the page's action, which answers Cognito's creation options (without a recent password
 * it sends the member to the password step first); the browser then makes the passkey and its JSON result is posted
 * back. Without JavaScript, and before the script runs, the page says passkeys need it.
 */
function PasskeyAddButton({
  creationOptions,
}: {
  creationOptions: PublicKeyCredentialCreationOptionsJSON | undefined;
}) {
  const { t } = useTranslation("passkeys");
  const support = usePasskeySupport();
  const navigation = useNavigation();
  const problem = usePasskeyCeremony(creationOptions, createPasskey, "passkey-add");
  if (support === "unknown") return <p className="notice">{t("section.needsJavaScript")}</p>;
  if (support === "no") return <p className="notice">{t("section.unsupported")}</p>;
  return (
    <Form method="post" className="passkeys__add">
      <p>{t("section.reauthenticationNote")}</p>
      <Button name="intent" value="passkey-options" pending={navigation.state !== "idle"}>
        {t("section.add")}
      </Button>
      {problem ? <p role="alert">{t(problem)}</p> : null}
    </Form>
  );
}
