import type { ReactNode } from "react";
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

/**
 * A web address in a mail's text: ASCII only (a Japanese sentence runs on right after one), and not the full stop,
 * comma or closing bracket a sentence puts after it.
 */
const WEB_ADDRESS = /https?:\/\/[\w\-.~:/?#[\]@!$&'()*+,;=%]*[\w\-~/#=&%]/g;

/** A mail's plain text with its web addresses as links, as a mail program shows them. */
function MailText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(WEB_ADDRESS)) {
    parts.push(text.slice(last, match.index));
    parts.push(
      <a key={match.index} href={match[0]}>
        {match[0]}
      </a>,
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return <pre className="mailbox-text">{parts}</pre>;
}

/** Captured mail and stand-in codes, newest first (development and preview only: see the dev-tools layout). */
export default function Mailbox({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("devtools");
  // Japan's time, as the mails themselves and the member pages give it, whatever the machine's zone.
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "short",
    timeStyle: "medium",
    timeZone: "Asia/Tokyo",
  });
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
                <MailText text={entry.text} />
              </article>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export const meta: Route.MetaFunction = () => [{ title: "Mailbox" }, { name: "robots", content: "noindex" }];
