import { data, redirect, useLocation } from "react-router";
import { z } from "zod";
import { translateFieldErrors } from "~/forms/field-errors.server";
import { FORM_FIELD_TEXTS } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuditEventTable } from "~/components/admin/audit-event-table";
import { describeAuditEvents } from "~/components/admin/audit-event-rows.server";
import { AdminGetForm } from "~/components/admin/get-form";
import { PAGE_LINKS_TEXT_KEYS, PageLinks } from "~/components/admin/page-links";
import { InputField, SelectField } from "~/components/form/fields";
import { AuditLogParams, STAFF_ACTIONS, listAuditEvents } from "~/domain/staff/staff-audit-log.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { withoutEmptyParams } from "~/routing/query-params";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin-audit-log";

type AuditLogField = keyof z.input<typeof AuditLogParams>;

/** The texts the filter form and the event table use (the field errors come translated). */
const AUDIT_LOG_TEXTS = [
  { namespace: "admin", keys: ["audit", "list.any", "list.invalid", ...PAGE_LINKS_TEXT_KEYS] },
  FORM_FIELD_TEXTS,
] as const;

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const shortUrl = withoutEmptyParams(url);
  if (shortUrl) throw redirect(shortUrl);
  const filter = AuditLogParams.safeParse(Object.fromEntries(url.searchParams));
  const page = filter.success ? await listAuditEvents(servicesOf(context).db, filter.data) : null;
  const nextParams = new URLSearchParams(url.searchParams);
  if (page?.nextCursor) nextParams.set("cursor", page.nextCursor);
  const firstParams = new URLSearchParams(url.searchParams);
  firstParams.delete("cursor");
  return data(
    {
      title: getInstance(context).t("admin:meta.auditLog"),
      values: Object.fromEntries(url.searchParams) as Partial<Record<AuditLogField, string>>,
      fieldErrors: filter.success
        ? {}
        : translateFieldErrors<AuditLogField>(context, z.flattenError(filter.error).fieldErrors),
      events: describeAuditEvents(page?.events ?? [], getInstance(context), getLocale(context)),
      // Keyset pages go one way (older); the way back is the newest page, since the log grows at its top.
      newestQuery: url.searchParams.has("cursor") ? `?${firstParams}`.replace(/\?$/, "") : null,
      olderQuery: page?.nextCursor ? `?${nextParams}` : null,
      // The component may not import the server-only audit module: the action names come with the data.
      actions: STAFF_ACTIONS,
      translations: loadTranslations(context, AUDIT_LOG_TEXTS),
    },
    { status: filter.success ? 200 : 400 },
  );
}

export default function AuditLogPage({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("admin");
  const location = useLocation();
  const { values, fieldErrors, events } = loaderData;
  const field = (name: AuditLogField) => ({ name, id: `audit-${name}`, defaultValue: values[name] ?? "" });
  const logPath = pathFor("admin-audit-log", i18n.language);
  return (
    <section className="admin-section" aria-labelledby="audit-log-title">
      <h2 id="audit-log-title">{t("audit.title")}</h2>
      <AdminGetForm key={location.search} className="admin-filters" aria-label={t("audit.filterLegend")}>
        <InputField label={t("audit.actor")} errors={fieldErrors.actor} inputProps={field("actor")} />
        <SelectField
          label={t("audit.action")}
          errors={fieldErrors.action}
          selectProps={field("action")}
          placeholder={t("list.any")}
          options={loaderData.actions.map((action) => ({ value: action, label: t(`audit.actions.${action}`) }))}
        />
        <InputField label={t("audit.target")} errors={fieldErrors.targetSub} inputProps={field("targetSub")} />
        <InputField label={t("audit.from")} errors={fieldErrors.from} inputProps={{ ...field("from"), type: "date" }} />
        <InputField label={t("audit.to")} errors={fieldErrors.to} inputProps={{ ...field("to"), type: "date" }} />
        {fieldErrors.cursor || fieldErrors.limit ? <p className="form-field__error">{t("list.invalid")}</p> : null}
        <div className="admin-filters__actions">
          <Button>{t("audit.submit")}</Button>
          <AppLink to={logPath}>{t("audit.reset")}</AppLink>
        </div>
      </AdminGetForm>
      {events.length === 0 ? <p>{t("audit.empty")}</p> : <AuditEventTable events={events} caption={t("audit.title")} />}
      <PageLinks
        previous={
          loaderData.newestQuery === null
            ? null
            : { to: `${logPath}${loaderData.newestQuery}`, text: t("audit.previous") }
        }
        next={
          loaderData.olderQuery === null ? null : { to: `${logPath}${loaderData.olderQuery}`, text: t("audit.next") }
        }
      />
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
