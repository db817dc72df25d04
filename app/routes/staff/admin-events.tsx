import type { SubmissionResult } from "@conform-to/react";
import { Form, data, useNavigation } from "react-router";
import { z } from "zod";
import { type FormReply, handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { formatDateTime } from "~/components/admin/formats";
import { FormAlert, InputField } from "~/components/form/fields";
import {
  type EndpointRefusal,
  type EndpointState,
  RECENT_DELIVERIES_IN_OVERVIEW,
  RECENT_DELIVERIES_PER_SERVICE,
  enableEndpointFrom,
  listSiblingEndpoints,
  redeliverEvent,
  redeliverSince,
} from "~/domain/events/endpoint-admin.server";
import {
  EnableEndpointSchema,
  RedeliverEventSchema,
  RedeliverSinceSchema,
  toJapanDateTimeLocal,
} from "~/domain/forms/staff-schemas";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { SIBLING_SERVICES } from "~/config.server";
import { pathFor } from "~/routing/route-table";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/admin-events";

/** The page's own texts, and the form kit's (the error summary's heading). */
const EVENTS_PAGE_TEXTS = [
  {
    namespace: "adminEvents",
    keys: ["title", "lead", "allServices", "config", "deliveries", "channels", "redeliverSince", "enable"],
  },
  FORM_FIELD_TEXTS,
] as const;

type T = ReturnType<typeof getInstance>["t"];

/** `?service=`: one service's own view, with its last 50 deliveries; anything else is the overview of all four. */
const ServiceViewSchema = z.enum(SIBLING_SERVICES).optional().catch(undefined);

function describeState(state: EndpointState, t: T, locale: string): string {
  switch (state.kind) {
    case "notConfigured":
      return t("adminEvents:states.notConfigured");
    case "healthy":
      return t("adminEvents:states.healthy");
    case "failing":
      return t("adminEvents:states.failing", { time: formatDateTime(state.since, locale) });
    case "disabled":
      return t(state.reason === "gone" ? "adminEvents:states.disabledGone" : "adminEvents:states.disabledFailing", {
        time: formatDateTime(state.since, locale),
      });
  }
}

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const { db, config, clock } = servicesOf(context);
  const { t } = getInstance(context);
  const locale = getLocale(context);
  const serviceView = ServiceViewSchema.parse(url.searchParams.get("service") ?? undefined) ?? null;
  const recentLimit = serviceView ? RECENT_DELIVERIES_PER_SERVICE : RECENT_DELIVERIES_IN_OVERVIEW;
  const endpoints = await listSiblingEndpoints(db, config.siblingEvents, {
    services: serviceView ? [serviceView] : undefined,
    deliveriesPerService: recentLimit,
  });
  return {
    title: t("admin:meta.events"),
    serviceView,
    recentLimit,
    fullLimit: RECENT_DELIVERIES_PER_SERVICE,
    // The forms' default time: now, as the datetime-local inputs read it (Japan time, to the minute).
    now: toJapanDateTimeLocal(clock.now()),
    services: endpoints.map((endpoint) => ({
      service: endpoint.service,
      name: t(`admin:referrers.${endpoint.service}`),
      webhookUrl: endpoint.webhookUrl,
      eventTypes: endpoint.eventTypes === null ? null : endpoint.eventTypes.join(", "),
      logoutUri: endpoint.logoutUri,
      feedAccess: endpoint.feedAccess,
      state: describeState(endpoint.state, t, locale),
      configured: endpoint.state.kind !== "notConfigured",
      disabled: endpoint.state.kind === "disabled",
      deliveries: endpoint.deliveries.map((delivery) => ({
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        channel: delivery.channel === "logout" ? ("logout" as const) : ("webhook" as const),
        attempts: delivery.attempts,
        lastStatus: delivery.lastAttemptAt
          ? delivery.lastStatus === null
            ? t("adminEvents:deliveries.noAnswer")
            : String(delivery.lastStatus)
          : "",
        lastAttemptAt: formatDateTime(delivery.lastAttemptAt, locale),
        next: delivery.deliveredAt
          ? t("adminEvents:deliveries.delivered", { time: formatDateTime(delivery.deliveredAt, locale) })
          : delivery.failedAt
            ? t("adminEvents:deliveries.failed", { time: formatDateTime(delivery.failedAt, locale) })
            : formatDateTime(delivery.nextAttemptAt, locale),
      })),
    })),
    translations: loadTranslations(context, EVENTS_PAGE_TEXTS),
  };
}

type EventsForm = "redeliver" | "redeliverSince" | "enable";

/** A refusal as the form's message, or on the time field it concerns; a delivery gone is a 404. */
function refusalReply(refusal: EndpointRefusal, reply: FormReply, timeField: "since" | "from" | null) {
  const message = `adminEvents:errors.${refusal.kind}`;
  const status = refusal.kind === "notFound" ? 404 : 400;
  const result =
    refusal.kind === "timeInFuture" && timeField
      ? reply({ fieldErrors: { [timeField]: [message] } })
      : reply({ formErrors: [message] });
  return { result, status };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const admin = requireAdmin(context, url);
  const formData = await request.formData();
  const { db, config, clock } = servicesOf(context);
  const actor = { sub: admin.sub, email: admin.email, requestId: context.get(requestInfoContext).requestId };
  const toast = getToastUtils(context);
  // Back to the view the form was on (the overview, or one service's).
  const pagePath = `${pathFor("admin-events", getLocale(context))}${url.search}`;
  const attemptLimit = () => ({ action: "staffAction", subject: admin.sub }) as const;
  // Which service's section shows the reply: the post names it (the schema then checks it is one).
  const service = String(formData.get("service") ?? "");
  const answer = (form: EventsForm, { result, status }: { result: SubmissionResult<string[]>; status: number }) =>
    data({ form, service, result }, { status });

  // Redelivery reveals nothing new to a configured sibling and sends only what it already had or was owed, so it
  // asks for no fresh password and code (unlike an export or a disable); each action is audited.
  switch (formData.get("intent")) {
    case "redeliver-since":
      return handleFormPost(
        context,
        formData,
        { schema: RedeliverSinceSchema, extra: { form: "redeliverSince" as const, service }, attemptLimit },
        async (value, reply) => {
          const outcome = await redeliverSince(db, config.siblingEvents, actor, value, clock.now());
          if (outcome.kind !== "queued") return answer("redeliverSince", refusalReply(outcome, reply, "since"));
          return toast.redirectWithSuccess(pagePath, {
            message: "adminEvents:toasts.redeliveredSince",
            values: { count: String(outcome.deliveries) },
          });
        },
      );
    case "enable":
      return handleFormPost(
        context,
        formData,
        { schema: EnableEndpointSchema, extra: { form: "enable" as const, service }, attemptLimit },
        async (value, reply) => {
          const outcome = await enableEndpointFrom(db, config.siblingEvents, actor, value, clock.now());
          if (outcome.kind !== "enabled") return answer("enable", refusalReply(outcome, reply, "from"));
          return toast.redirectWithSuccess(pagePath, {
            message: "adminEvents:toasts.enabled",
            values: { count: String(outcome.deliveries) },
          });
        },
      );
    default:
      return handleFormPost(
        context,
        formData,
        { schema: RedeliverEventSchema, extra: { form: "redeliver" as const, service }, attemptLimit },
        async (value, reply) => {
          const outcome = await redeliverEvent(db, config.siblingEvents, actor, value, clock.now());
          if (outcome.kind !== "queued") return answer("redeliver", refusalReply(outcome, reply, null));
          return toast.redirectWithSuccess(pagePath, "adminEvents:toasts.redelivered");
        },
      );
  }
}

type LoaderData = Route.ComponentProps["loaderData"];
type ServiceView = LoaderData["services"][number];
type ActionData = Route.ComponentProps["actionData"];

export default function AdminEventsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("adminEvents");
  const pagePath = pathFor("admin-events", i18n.language);
  return (
    <section className="admin-section" aria-labelledby="events-title">
      <h2 id="events-title">{t("title")}</h2>
      <p>{t("lead")}</p>
      {loaderData.serviceView ? (
        <p>
          <AppLink to={pagePath}>{t("allServices")}</AppLink>
        </p>
      ) : null}
      {loaderData.services.map((view) => (
        <ServiceSection
          key={view.service}
          view={view}
          now={loaderData.now}
          recentLimit={loaderData.recentLimit}
          moreLink={
            loaderData.serviceView || view.deliveries.length < loaderData.recentLimit
              ? null
              : { to: `${pagePath}?service=${view.service}`, count: loaderData.fullLimit }
          }
          actionData={actionData?.service === view.service ? actionData : undefined}
        />
      ))}
    </section>
  );
}

function ServiceSection({
  view,
  now,
  recentLimit,
  moreLink,
  actionData,
}: {
  view: ServiceView;
  now: string;
  recentLimit: number;
  /** The service's own view, with more of its deliveries; null when every recent one is shown already. */
  moreLink: { to: string; count: number } | null;
  actionData: ActionData;
}) {
  const { t } = useTranslation("adminEvents");
  const headingId = `events-${view.service}`;
  const replyOf = (form: EventsForm) => (actionData?.form === form ? actionData.result : undefined);
  return (
    <section className="admin-section" aria-labelledby={headingId} data-testid={`events-${view.service}`}>
      <h3 id={headingId}>
        {view.name} <span className="visually-hidden">({view.service})</span>
      </h3>
      <dl className="admin-facts">
        <dt>{t("config.state")}</dt>
        <dd data-testid="endpoint-state">{view.state}</dd>
        <dt>{t("config.webhookUrl")}</dt>
        <dd>{view.webhookUrl ? <code>{view.webhookUrl}</code> : t("config.none")}</dd>
        <dt>{t("config.eventTypes")}</dt>
        <dd>{view.webhookUrl ? (view.eventTypes ?? t("config.allTypes")) : t("config.none")}</dd>
        <dt>{t("config.logoutUri")}</dt>
        <dd>{view.logoutUri ? <code>{view.logoutUri}</code> : t("config.none")}</dd>
        <dt>{t("config.feedAccess")}</dt>
        <dd>{view.feedAccess ? t("config.yes") : t("config.no")}</dd>
      </dl>
      {view.configured ? (
        view.disabled ? (
          <TimeForm form="enable" field="from" view={view} defaultValue={now} lastResult={replyOf("enable")} />
        ) : (
          <TimeForm
            form="redeliverSince"
            field="since"
            view={view}
            defaultValue=""
            lastResult={replyOf("redeliverSince")}
          />
        )
      ) : null}
      <DeliveryTable view={view} recentLimit={recentLimit} lastResult={replyOf("redeliver")} />
      {moreLink ? (
        <p>
          <AppLink to={moreLink.to}>{t("deliveries.more", { service: view.name, count: moreLink.count })}</AppLink>
        </p>
      ) : null}
    </section>
  );
}

/** "Redeliver since" and "enable from": one time, in Japan time, posted with the service. */
function TimeForm({
  form,
  field,
  view,
  defaultValue,
  lastResult,
}: {
  form: "redeliverSince" | "enable";
  field: "since" | "from";
  view: ServiceView;
  defaultValue: string;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("adminEvents");
  const navigation = useNavigation();
  const formId = `${form}-${view.service}`;
  return (
    <Form method="post" id={formId} className="admin-confirm" aria-labelledby={`${formId}-title`} noValidate>
      <h4 id={`${formId}-title`}>{t(`${form}.title`)}</h4>
      <FormAlert form={{ id: formId, errorId: `${formId}-form-error`, errors: lastResult?.error?.[""] ?? undefined }} />
      <input type="hidden" name="intent" value={form === "enable" ? "enable" : "redeliver-since"} />
      <input type="hidden" name="service" value={view.service} />
      <InputField
        label={t(form === "enable" ? "enable.from" : "redeliverSince.since")}
        hint={t(`${form}.hint`)}
        errors={lastResult?.error?.[field] ?? undefined}
        inputProps={{
          id: `${formId}-${field}`,
          name: field,
          type: "datetime-local",
          required: true,
          autoComplete: "off",
          defaultValue: (lastResult?.initialValue?.[field] as string | undefined) ?? defaultValue,
        }}
      />
      <Button variant={form === "enable" ? "primary" : "secondary"} pending={navigation.state === "submitting"}>
        {t(`${form}.submit`)}
      </Button>
    </Form>
  );
}

/** The service's recent deliveries, each with its own redeliver button (a post per row, so no script is needed). */
function DeliveryTable({
  view,
  recentLimit,
  lastResult,
}: {
  view: ServiceView;
  recentLimit: number;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("adminEvents");
  const errors = lastResult?.error?.[""] ?? undefined;
  const formId = `redeliver-${view.service}`;
  const canRedeliver = view.configured && !view.disabled;
  return (
    <>
      <FormAlert form={{ id: formId, errorId: `${formId}-form-error`, errors }} />
      {view.deliveries.length === 0 ? (
        <p>{t("deliveries.empty")}</p>
      ) : (
        <div className="admin-table-scroll">
          <table className="admin-table" data-testid="deliveries">
            <caption className="visually-hidden">
              {t("deliveries.caption", { service: view.name, count: recentLimit })}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t("deliveries.columns.eventType")}</th>
                <th scope="col">{t("deliveries.columns.eventId")}</th>
                <th scope="col">{t("deliveries.columns.channel")}</th>
                <th scope="col" className="admin-table__number">
                  {t("deliveries.columns.attempts")}
                </th>
                <th scope="col">{t("deliveries.columns.lastStatus")}</th>
                <th scope="col">{t("deliveries.columns.lastAttemptAt")}</th>
                <th scope="col">{t("deliveries.columns.next")}</th>
                {canRedeliver ? <th scope="col">{t("deliveries.columns.action")}</th> : null}
              </tr>
            </thead>
            <tbody>
              {view.deliveries.map((delivery) => (
                <tr key={`${delivery.eventId}/${delivery.channel}`}>
                  <th scope="row">{delivery.eventType}</th>
                  <td>
                    <code>{delivery.eventId}</code>
                  </td>
                  <td>{t(`channels.${delivery.channel}`)}</td>
                  <td className="admin-table__number">{delivery.attempts}</td>
                  <td>{delivery.lastStatus || t("deliveries.notTried")}</td>
                  <td>{delivery.lastAttemptAt}</td>
                  <td>{delivery.next}</td>
                  {canRedeliver ? (
                    <td>
                      <Form method="post">
                        <input type="hidden" name="intent" value="redeliver" />
                        <input type="hidden" name="service" value={view.service} />
                        <input type="hidden" name="eventId" value={delivery.eventId} />
                        <input type="hidden" name="channel" value={delivery.channel} />
                        <Button
                          variant="secondary"
                          aria-label={t("deliveries.redeliverLabel", { eventId: delivery.eventId, service: view.name })}
                        >
                          {t("deliveries.redeliver")}
                        </Button>
                      </Form>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
