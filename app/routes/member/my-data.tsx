import type { TFunction } from "i18next";
import { Fragment } from "react";
import {
  type DataCopy,
  DATA_COPY_SCHEMA_VERSION,
  type DataCopySectionName,
  type JsonValue,
  STAFF_PSEUDONYM,
  collectDataCopy,
} from "~/domain/account/data-copy.server";
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
 * provider's attributes come from the member directory's copy.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  await requireRecentPassword(context, url, member);
  const { db, clock } = servicesOf(context);
  const copy = await collectDataCopy({ db, sub: member.sub, email: member.email, identity: null }, clock.now());
  return {
    title: getInstance(context).t("account:dataCopy.title"),
    translations: loadTranslations(context, [{ namespace: "account", keys: ["dataCopy"] }]),
    downloadPath: pathFor("my-data-download", getLocale(context)),
    schemaVersion: DATA_COPY_SCHEMA_VERSION,
    copy,
    codeNames: codeNamesOf(copy, getInstance(context).getFixedT(getLocale(context), "account")),
  };
}

/** A section's codes as the page writes them: field name, then code, then text. */
type CodeNames = Record<string, Record<string, string>>;

/**
 * The record's event kinds and the staff's action names in the page's language, the texts /my/security/ shows, and
 * the staff pseudonyms ("staff-2" reads "Staff member 2"), for the codes this copy holds only (the file keeps the
 * codes, which programs read). The count and time of refused sign-ins and unfinished second steps have fields of
 * their own here, so their kinds read without them.
 */
function codeNamesOf(copy: DataCopy, t: TFunction<"account">): Partial<Record<DataCopySectionName, CodeNames>> {
  const codesOf = (section: JsonValue, field: string) =>
    new Set(
      (Array.isArray(section) ? section : []).flatMap((row) =>
        row !== null && typeof row === "object" && !Array.isArray(row) && typeof row[field] === "string"
          ? [row[field]]
          : [],
      ),
    );
  const kinds = [...codesOf(copy.sections.securityRecord, "kind")];
  const actions = [...codesOf(copy.sections.staffActions, "action")];
  const staff = [...codesOf(copy.sections.staffActions, "staff")];
  return {
    securityRecord: {
      kind: Object.fromEntries(
        kinds.map((kind) => [
          kind,
          kind === "sign-in-refused"
            ? t("dataCopy.refusedSignIn")
            : kind === "second-step-failed"
              ? t("dataCopy.unfinishedSecondStep")
              : t(`security.events.${kind}` as never),
        ]),
      ),
    },
    staffActions: {
      action: Object.fromEntries(
        actions.map((action) => [
          action,
          t(`security.staffActions.${action}` as never, { defaultValue: t("security.staffActions.other") }),
        ]),
      ),
      staff: Object.fromEntries(
        staff.map((name) => [name, t("dataCopy.staffPseudonym", { number: STAFF_PSEUDONYM.exec(name)?.[1] ?? name })]),
      ),
    },
  };
}

export default function DataCopyPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("account");
  const { copy } = loaderData;
  const sections = Object.entries(copy.sections) as [DataCopySectionName, JsonValue][];
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
      <h2>{t("dataCopy.sections.member")}</h2>
      <ValueView value={{ sub: copy.member.sub, email: copy.member.email, generatedAt: copy.generatedAt }} />
      {sections.map(([name, value]) => (
        <section key={name} data-testid={`data-copy-${name}`}>
          <h2>{t(`dataCopy.sections.${name}`)}</h2>
          <ValueView value={value} codeNames={loaderData.codeNames[name]} />
        </section>
      ))}
    </section>
  );
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The page's way of writing the copy's names and values, in its language; times in Japan time. */
function useCopyFormat() {
  const { t, i18n } = useTranslation("account");
  // A fixed zone keeps the server's and the browser's text identical (no hydration mismatch).
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: "Asia/Tokyo",
  });
  return {
    t,
    /** A field's name in the page's language; a name of the member's own (a questionnaire answer's) as it is. */
    label(name: string) {
      return t(`dataCopy.fields.${name}` as never, { defaultValue: name });
    },
    scalar(value: string | number | boolean | null) {
      if (value === null) return t("dataCopy.none");
      if (typeof value === "boolean") return t(value ? "dataCopy.yes" : "dataCopy.no");
      if (typeof value === "string" && ISO_TIME.test(value)) {
        return <time dateTime={value}>{dateFormat.format(new Date(value))}</time>;
      }
      return String(value);
    },
  };
}

/** One value of the copy: a list of items, a set of fields, or a single value. */
function ValueView({ value, codeNames }: { value: JsonValue; codeNames?: CodeNames }) {
  const { t, label, scalar } = useCopyFormat();
  if (value === null) return <p>{t("dataCopy.none")}</p>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <p>{t("dataCopy.empty")}</p>;
    if (value.every((item) => item === null || typeof item !== "object")) {
      return <p>{value.map((item) => String(item)).join(", ")}</p>;
    }
    return (
      <ol className="data-copy__items">
        {value.map((item, index) => (
          <li key={index}>
            <ValueView value={item} codeNames={codeNames} />
          </li>
        ))}
      </ol>
    );
  }
  if (typeof value === "object") {
    return (
      <dl className="definition-list">
        {Object.entries(value).map(([name, field]) => (
          <Fragment key={name}>
            <dt>{label(name)}</dt>
            <dd data-field={name}>
              {field !== null && typeof field === "object" ? (
                <ValueView value={field} codeNames={codeNames} />
              ) : typeof field === "string" && codeNames?.[name]?.[field] !== undefined ? (
                codeNames[name][field]
              ) : (
                scalar(field)
              )}
            </dd>
          </Fragment>
        ))}
      </dl>
    );
  }
  return <p>{scalar(value)}</p>;
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
