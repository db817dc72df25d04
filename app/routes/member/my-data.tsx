import { Fragment } from "react";
import { type DataCopyFact, describeDataCopy } from "~/components/data-copy-view.server";
import { DATA_COPY_SCHEMA_VERSION, collectDataCopy } from "~/domain/account/data-copy.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { requireRecentPassword } from "~/middleware/require-recent-password.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-data";

/**
 * The member's data in readable form, and the button that downloads it as JSON (my-data-download). It shows as much
 * as the file holds, so it asks for a recent password too. The page view makes no Cognito call: the identity
 * provider's attributes come from the member directory's copy. The page shows words only (describeDataCopy); the
 * codes stay in the file, which programs read.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  await requireRecentPassword(context, url, member);
  const { db, clock, config } = servicesOf(context);
  const locale = getLocale(context);
  const copy = await collectDataCopy({ db, sub: member.sub, email: member.email, identity: null }, clock.now());
  return {
    title: getInstance(context).t("account:dataCopy.title"),
    translations: loadTranslations(context, [
      { namespace: "account", keys: ["dataCopy.title", "dataCopy.lead", "dataCopy.download", "dataCopy.schemaNote"] },
    ]),
    downloadPath: pathFor("my-data-download", locale),
    schemaVersion: DATA_COPY_SCHEMA_VERSION,
    sections: describeDataCopy(copy, getInstance(context), locale, { adminGroup: config.adminGroup }),
  };
}

export default function DataCopyPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("account");
  return (
    <section className="content data-copy" data-testid="data-copy">
      <h1>{t("dataCopy.title")}</h1>
      <p>{t("dataCopy.lead")}</p>
      {/* A plain form: the browser saves the file itself, with JavaScript on or off. */}
      <form method="post" action={loaderData.downloadPath}>
        <button type="submit" className="button button--primary" data-testid="data-copy-download">
          {t("dataCopy.download")}
        </button>
      </form>
      <p className="definition-list__hint">{t("dataCopy.schemaNote", { version: loaderData.schemaVersion })}</p>
      {loaderData.sections.map((section) => (
        <section
          key={section.name}
          data-testid={`data-copy-${section.name}`}
          aria-labelledby={`data-copy-${section.name}-title`}
        >
          <h2 id={`data-copy-${section.name}-title`}>{section.title}</h2>
          {section.groups.length === 0 ? (
            <p>{section.empty}</p>
          ) : section.list ? (
            <ol className="data-copy__items">
              {section.groups.map((facts, index) => (
                <li key={index}>
                  <Facts facts={facts} />
                </li>
              ))}
            </ol>
          ) : (
            <Facts facts={section.groups[0]!} />
          )}
        </section>
      ))}
    </section>
  );
}

/** One record's facts: label, then value; a time as a <time> with its instant. */
function Facts({ facts }: { facts: readonly DataCopyFact[] }) {
  return (
    <dl className="definition-list">
      {facts.map((fact, index) => (
        // A label may repeat (one per cancellation reason, one per answer), so the position keys the pair.
        <Fragment key={index}>
          <dt>{fact.label}</dt>
          <dd data-field={fact.field}>
            {fact.dateTime ? <time dateTime={fact.dateTime}>{fact.value}</time> : fact.value}
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
