import { useTranslation } from "~/i18n/use-translation";
import { listMailboxEntries, mailboxDirectory } from "~/integrations/dev-mailbox.server";
import { requireDevTools } from "~/routing/dev-tools-only.server";
import { servicesOf } from "~/services.server";
import type { Route } from "./+types/mailbox";

export async function loader({ context }: Route.LoaderArgs) {
  // The layout's loader guards too, but loaders run in parallel: this one must not read the mailbox either.
  requireDevTools(context);
  const entries = await listMailboxEntries(mailboxDirectory(servicesOf(context).config.dataDir));
  return { entries };
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
