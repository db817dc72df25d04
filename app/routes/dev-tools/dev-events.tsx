import { data } from "react-router";
import { SIBLING_SERVICES } from "~/config.server";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { useTranslation } from "~/i18n/use-translation";
import { type CapturedSiblingDelivery, devEventCaptureContext } from "~/router-context.server";
import type { Route } from "./+types/dev-events";

export async function loader({ context }: Route.LoaderArgs) {
  // Only the dev and preview entry hands out the event capture: production answers 404 here even before the guard.
  const capture = context.get(devEventCaptureContext);
  if (!capture) throw data(null, { status: 404 });
  const deliveries = await capture.deliveries();
  const t = getInstance(context).getFixedT(null, "devtools");
  return {
    title: t("documentTitle", { title: t("events.title") }),
    services: SIBLING_SERVICES.map((service) => ({
      service,
      deliveries: deliveries.filter((delivery) => delivery.service === service),
    })),
  };
}

function Verdict({ delivery }: { delivery: CapturedSiblingDelivery }) {
  const { t } = useTranslation("devtools");
  const mark = { verified: "✓", rejected: "✗", unverifiable: "?" }[delivery.verdict];
  return (
    <span className="dev-events-verdict" data-verdict={delivery.verdict}>
      <span aria-hidden="true">{mark} </span>
      {t(`events.verdicts.${delivery.verdict}`)}
      {delivery.reason ? `: ${delivery.reason}` : null}
    </span>
  );
}

function Delivery({ delivery }: { delivery: CapturedSiblingDelivery }) {
  const { t, i18n } = useTranslation("devtools");
  // Japan's time, as the mailbox and the member pages give it, whatever the machine's zone.
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "short",
    timeStyle: "medium",
    timeZone: "Asia/Tokyo",
  });
  const headingId = `delivery-${delivery.id}`;
  return (
    <li className="dev-events-entry" data-channel={delivery.channel} data-verdict={delivery.verdict}>
      <article aria-labelledby={headingId}>
        <h3 id={headingId}>
          {delivery.channel === "logout" ? t("events.logout") : (delivery.type ?? t("events.unknownType"))}
        </h3>
        <dl>
          <dt>{t("events.eventId")}</dt>
          <dd className="dev-events-wrap">{delivery.eventId ?? "—"}</dd>
          <dt>{t("events.receivedAt")}</dt>
          <dd>
            <time dateTime={delivery.receivedAt}>{dateFormat.format(new Date(delivery.receivedAt))}</time>
          </dd>
          <dt>{t("events.signature")}</dt>
          <dd className="dev-events-wrap">
            <Verdict delivery={delivery} />
          </dd>
        </dl>
        <details>
          <summary>{t("events.headers")}</summary>
          <pre className="dev-events-text">
            {Object.entries(delivery.headers)
              .map(([name, value]) => `${name}: ${value}`)
              .join("\n")}
          </pre>
        </details>
        <details>
          <summary>{t("events.body")}</summary>
          <pre className="dev-events-text">{delivery.body}</pre>
        </details>
        {delivery.claims ? (
          <details>
            <summary>{t("events.claims")}</summary>
            <pre className="dev-events-text">{JSON.stringify(delivery.claims, null, 2)}</pre>
          </details>
        ) : null}
      </article>
    </li>
  );
}

/** What the sibling services' stand-in receiver got, per service, newest first (development and preview only). */
export default function DevEvents({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("devtools");
  const { t: tc } = useTranslation();
  return (
    <section className="dev-events">
      <h1>{t("events.title")}</h1>
      <p>{t("events.intro")}</p>
      {loaderData.services.map(({ service, deliveries }) => (
        <section key={service} className="dev-events-service" aria-labelledby={`service-${service}`}>
          <h2 id={`service-${service}`}>{tc(`services.${service}`)}</h2>
          {deliveries.length === 0 ? (
            <p>{t("events.empty")}</p>
          ) : (
            <ol className="dev-events-list">
              {deliveries.map((delivery) => (
                <Delivery key={delivery.id} delivery={delivery} />
              ))}
            </ol>
          )}
        </section>
      ))}
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "robots", content: "noindex" },
];
