import { data } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { devMailboxContext } from "~/router-context.server";
import type { Route } from "./+types/dev-mailbox";

export async function loader({ context }: Route.LoaderArgs) {
  // Only the dev and preview entry hands out a mailbox: production answers 404 here even before the layout's guard.
  const mailbox = context.get(devMailboxContext);
  if (!mailbox) throw data(null, { status: 404 });
  return { entries: await mailbox.entries() };
}

/** Captured mail and stand-in codes, newest first (development and preview only: see the dev-tools layout). */
export default function Mailbox({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("devtools");
  const dateFormat = new Intl.DateTimeFormat(i18n.language, { dateStyle: "short", timeStyle: "medium" });
  return (
    <section className="mailbox">
      <h1>{t("mailbox.title")}</h1>
      <p>{t("mailbox.intro")}</p>
      {loaderData.entries.length === 0 ? (
        <p>{t("mailbox.empty")}</p>
      ) : (
        <ol className="mailbox-list">
          {loaderData.entries.map((entry) => (
            <li key={entry.id} className="mailbox-entry" data-kind={entry.kind}>
              <article aria-labelledby={`mail-${entry.id}`}>
                <h2 id={`mail-${entry.id}`}>{entry.subject || t("mailbox.noSubject")}</h2>
                <dl>
                  <dt>{t("mailbox.kind")}</dt>
                  <dd>{entry.kind === "code" ? t("mailbox.kindCode") : t("mailbox.kindMail")}</dd>
                  <dt>{t("mailbox.to")}</dt>
                  <dd className="mailbox-to">{entry.to.join(", ")}</dd>
                  <dt>{t("mailbox.receivedAt")}</dt>
                  <dd>
                    <time dateTime={entry.receivedAt}>{dateFormat.format(new Date(entry.receivedAt))}</time>
                  </dd>
                  {entry.code ? (
                    <>
                      <dt>{t("mailbox.code")}</dt>
                      <dd>
                        <code className="mailbox-code">{entry.code}</code>
                      </dd>
                    </>
                  ) : null}
                </dl>
                <pre className="mailbox-text">{entry.text}</pre>
              </article>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export const meta: Route.MetaFunction = () => [{ title: "Mailbox" }, { name: "robots", content: "noindex" }];
