import { Form } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "../button";
import { InputField } from "../form/fields";
import { createPasskey, usePasskeyButton, usePasskeySupport } from "./passkey-ceremony";

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
 * way), and the list, whose rename and delete are plain forms posting to `action`. Texts: "passkeys".
 */
export function PasskeySection({
  passkeys,
  action,
  maxNameLength,
}: {
  passkeys: PasskeyItem[];
  action: string;
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
      <PasskeyAddButton action={action} />
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
              <Form method="post" action={action} className="passkey-list__rename">
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
                <Button name="intent" value="rename" variant="secondary">
                  {t("section.rename")}
                </Button>
              </Form>
              <Form method="post" action={action}>
                <input type="hidden" name="credentialId" value={passkey.credentialId} />
                <Button
                  name="intent"
                  value="delete"
                  variant="danger"
                  aria-label={t("section.deleteLabel", { name: passkey.label })}
                >
                  {t("section.delete")}
                </Button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The button asks the passkey endpoint for Cognito's creation options (without a recent password it is sent to the
 * password step instead), lets the browser make the passkey, and posts its JSON result in the hidden input of a
 * plain form. Without JavaScript, and before the script runs, the page says passkeys need it.
 */
function PasskeyAddButton({ action }: { action: string }) {
  const { t } = useTranslation("passkeys");
  const support = usePasskeySupport();
  const { formRef, busy, problem, start } = usePasskeyButton(action, createPasskey);
  if (support === "unknown") return <p className="notice">{t("section.needsJavaScript")}</p>;
  if (support === "no") return <p className="notice">{t("section.unsupported")}</p>;
  return (
    <form method="post" action={action} ref={formRef} className="passkeys__add">
      <input type="hidden" name="intent" value="add" />
      <input type="hidden" name="credential" />
      <p>{t("section.reauthenticationNote")}</p>
      <Button type="button" pending={busy} onClick={() => void start({ intent: "options" })}>
        {t("section.add")}
      </Button>
      {problem ? <p role="alert">{"key" in problem ? t(problem.key) : problem.text}</p> : null}
    </form>
  );
}
