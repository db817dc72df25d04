import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, data, useNavigation } from "react-router";
import { z } from "zod";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuditEventTable } from "~/components/admin/audit-event-table";
import { auditFieldLabels, describeAuditEvents } from "~/components/admin/audit-event-rows.server";
import { describeMemberDetail } from "~/components/admin/member-detail-view.server";
import { MemberDetailSections } from "~/components/admin/member-detail-sections";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { CONFIRMED_STAFF_ACTIONS, type ConfirmedStaffAction } from "~/domain/forms/form-choices";
import { StaffActionSchema, StaffEmailChangeSchema } from "~/domain/forms/staff-schemas";
import { listPasskeys } from "~/domain/account/passkeys.server";
import { toDomainError } from "~/domain/domain-error.server";
import { findMemberDetail } from "~/domain/staff/member-detail.server";
import {
  changeMemberEmail,
  disableMember,
  enableMember,
  endMemberSessions,
  isStaffAccount,
  refreshMember,
  turnOffMemberTwoStep,
} from "~/domain/staff/staff-actions.server";
import { twoStepStatusOf } from "~/domain/security/two-step-verification.server";
import { listAuditEvents } from "~/domain/staff/staff-audit-log.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { keptFormFields } from "~/middleware/require-recent-password.server";
import { requireRecentStaffConfirmation } from "~/middleware/staff-session.server";
import { pathFor } from "~/routing/route-table";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/admin-user";

const SubSchema = z.uuid();
const ConfirmSchema = z.enum(CONFIRMED_STAFF_ACTIONS).optional().catch(undefined);

/** The member's sub from the URL; a malformed one names no member, so it is the same 404 as an unknown one. */
function subOf(params: { sub?: string }): string {
  const sub = SubSchema.safeParse(params.sub);
  if (!sub.success) throw data(null, { status: 404 });
  return sub.data.toLowerCase();
}

/**
 * The page's heading, the staff actions and the member's audit trail; the detail's sections come made
 * (describeMemberDetail) and the actions' errors come translated. Of the actions, the buttons of those offered and
 * the confirmation of the one asked for (`confirm`): the page sends what it shows, not every action's text.
 */
function memberDetailTexts(offered: readonly ConfirmedStaffAction[], confirm: ConfirmedStaffAction | null) {
  const actionTexts = [
    "actions.title",
    "actions.cancel",
    "actions.staffAccount",
    ...["button", "newEmail", "review", "confirm", "from", "to", "submit"].map((key) => `actions.emailChange.${key}`),
    ...offered.map((action) => `actions.${actionKey(action)}.button`),
    ...(confirm ? ["confirm", "submit"].map((key) => `actions.${actionKey(confirm)}.${key}`) : []),
  ];
  return [
    {
      namespace: "admin",
      keys: [
        ...["title", "back", "auditTrail", "fullAuditLog"].map((key) => `detail.${key}`),
        ...actionTexts,
        ...["columns", "before", "after", "noChange", "empty"].map((key) => `audit.${key}`),
      ],
    },
    FORM_FIELD_TEXTS,
  ] as const;
}

export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const admin = requireAdmin(context, url);
  const sub = subOf(params);
  const { db, config } = servicesOf(context);
  const [detail, audit, twoStep, passkeys] = await Promise.all([
    findMemberDetail(db, sub),
    listAuditEvents(db, { targetSub: sub }),
    twoStepStatusOf(db, sub),
    listPasskeys(db, sub),
  ]);
  if (!detail) throw data(null, { status: 404 });
  const i18n = getInstance(context);
  const locale = getLocale(context);
  const enabled = detail.directory?.enabled ?? true;
  // A staff member's account is changed in the AWS console: only the refresh (which changes nothing of it) is offered.
  const staffAccount = isStaffAccount(detail.directory?.groups ?? [], config.adminGroup);
  const availableActions = CONFIRMED_STAFF_ACTIONS.filter((action) =>
    staffAccount
      ? action === "refresh"
      : action === "two-step-off"
        ? twoStep.enabled
        : enabled
          ? action !== "enable"
          : action !== "disable",
  );
  const asked = ConfirmSchema.parse(url.searchParams.get("confirm") ?? undefined) ?? null;
  // On a staff member's page only the refresh is confirmed: a link to another action shows the list instead.
  const confirm = asked && (!staffAccount || availableActions.includes(asked)) ? asked : null;
  return {
    title: i18n.t("admin:meta.detail"),
    sub,
    email: detail.directory?.email ?? null,
    sections: describeMemberDetail(detail, { twoStep, passkeys }, i18n, locale),
    // A disabled member can be enabled, an enabled one disabled; 2-step verification turned off only where it is on.
    // The list comes with the data so the page does not load the form choices' module for it.
    availableActions,
    staffAccount,
    auditEvents: describeAuditEvents(audit.events, i18n, locale),
    confirm,
    // Back from confirming the password and code: the new address typed before, in its review panel again.
    keptEmail: (await keptFormFields(context, { request, url }, admin))?.email ?? null,
    translations: loadTranslations(context, memberDetailTexts(availableActions, confirm)),
    constraints: {
      staffAction: formConstraint(StaffActionSchema),
      emailChange: formConstraint(StaffEmailChangeSchema),
    },
  };
}

export async function action({ request, url, params, context }: Route.ActionArgs) {
  const admin = requireAdmin(context, url);
  const sub = subOf(params);
  const formData = await request.formData();
  const services = servicesOf(context);
  const detailPath = pathFor("admin-user", getLocale(context), { sub });
  const actor = { sub: admin.sub, email: admin.email, requestId: context.get(requestInfoContext).requestId };
  const toast = getToastUtils(context);

  const staffLimit = { action: "staffAction", subject: admin.sub } as const;

  if (String(formData.get("intent")).endsWith("email-change")) {
    return handleFormPost(
      context,
      formData,
      {
        schema: StaffEmailChangeSchema,
        extra: { form: "emailChange" as const },
        // The review step changes nothing: it shows old → new with the confirming button.
        attemptLimit: ({ intent }) => (intent === "review-email-change" ? null : staffLimit),
        errorFields: { sameAddress: "email", emailUnavailable: "email" },
      },
      async ({ intent, email }, reply) => {
        if (intent === "review-email-change") return { form: "emailChange" as const, result: reply(), review: email };
        await requireRecentStaffConfirmation(context, url, admin, { keep: { email } });
        await changeMemberEmail(services, actor, sub, email, getInstance(context)).catch(throwNotFoundForUnknownMember);
        return toast.redirectWithSuccess(detailPath, "admin:toasts.emailChanged");
      },
    );
  }

  return handleFormPost(
    context,
    formData,
    { schema: StaffActionSchema, extra: { form: "staffAction" as const }, attemptLimit: () => staffLimit },
    async ({ intent }) => {
      if (HIGH_IMPACT_ACTIONS.has(intent)) {
        await requireRecentStaffConfirmation(context, url, admin, { returnTo: `${detailPath}?confirm=${intent}` });
      }
      const fieldLabels = (names: string[]) => auditFieldLabels(names, getInstance(context), getLocale(context));
      const message = await runConfirmedStaffAction(intent, fieldLabels, services, actor, sub).catch(
        throwNotFoundForUnknownMember,
      );
      return toast.redirectWithSuccess(detailPath, message);
    },
  );
}

/** The actions that need the password and code entered within the last 10 minutes (docs/security.md, "Staff rights on
the admin API"). */ const HIGH_IMPACT_ACTIONS: ReadonlySet<ConfirmedStaffAction> = new Set(["disable", "two-step-off"]);

/** An action on a sub no member has answers the page's 404, as the loader does, rather than a form message. */
function throwNotFoundForUnknownMember(error: unknown): never {
  if (toDomainError(error)?.code === "memberNotFound") throw data(null, { status: 404 });
  throw error;
}

/** Runs one confirmed action and says which toast reports it; a refresh names the fields it changed in words. */
async function runConfirmedStaffAction(
  intent: ConfirmedStaffAction,
  fieldLabels: (names: string[]) => string,
  ...[services, actor, sub]: Parameters<typeof endMemberSessions>
): Promise<string | { message: string; values: Record<string, string> }> {
  switch (intent) {
    case "refresh": {
      const { changes } = await refreshMember(services, actor, sub);
      const fields = fieldLabels(Object.keys(changes));
      return fields ? { message: "admin:toasts.refreshedChanged", values: { fields } } : "admin:toasts.refreshed";
    }
    case "sessions-end":
      await endMemberSessions(services, actor, sub);
      return "admin:toasts.sessionsEnded";
    case "disable":
      await disableMember(services, actor, sub);
      return "admin:toasts.disabled";
    case "enable":
      await enableMember(services, actor, sub);
      return "admin:toasts.enabled";
    case "two-step-off":
      await turnOffMemberTwoStep(services, actor, sub);
      return "admin:toasts.twoStepOff";
  }
}

export default function AdminUserPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("admin");
  const { email, sub } = loaderData;
  return (
    <>
      <p>
        <AppLink to={pathFor("admin", i18n.language)}>{t("detail.back")}</AppLink>
      </p>
      <h2>
        {t("detail.title")}: {email ?? sub}
      </h2>
      <StaffActions
        sub={sub}
        available={loaderData.availableActions}
        staffAccount={loaderData.staffAccount}
        currentEmail={email ?? ""}
        confirm={loaderData.confirm}
        constraints={loaderData.constraints}
        actionData={actionData}
        keptEmail={loaderData.keptEmail}
      />
      <MemberDetailSections sections={loaderData.sections} />
      <section className="admin-section" aria-labelledby="audit-trail-title">
        <h3 id="audit-trail-title">{t("detail.auditTrail")}</h3>
        {loaderData.auditEvents.length === 0 ? (
          <p>{t("audit.empty")}</p>
        ) : (
          <AuditEventTable events={loaderData.auditEvents} caption={t("detail.auditTrail")} />
        )}
        <p>
          <AppLink to={`${pathFor("admin-audit-log", i18n.language)}?targetSub=${sub}`}>
            {t("detail.fullAuditLog")}
          </AppLink>
        </p>
      </section>
    </>
  );
}

type ActionData = Route.ComponentProps["actionData"];

/** Which action's panel is open: the one a link asked to confirm, or the e-mail review the action answered. */
function StaffActions({
  sub,
  available,
  staffAccount,
  currentEmail,
  confirm,
  constraints,
  actionData,
  keptEmail,
}: {
  sub: string;
  /** The new address typed before the staff member confirmed their password and code. */
  keptEmail: string | null;
  available: readonly ConfirmedStaffAction[];
  staffAccount: boolean;
  currentEmail: string;
  confirm: ConfirmedStaffAction | null;
  constraints: Record<"staffAction" | "emailChange", FormConstraint>;
  actionData: ActionData;
}) {
  const { t, i18n } = useTranslation("admin");
  const detailPath = pathFor("admin-user", i18n.language, { sub });
  return (
    <section className="admin-section admin-actions" aria-labelledby="staff-actions-title">
      <h3 id="staff-actions-title">{t("actions.title")}</h3>
      {staffAccount ? <StaffAccountNotice actionData={actionData} /> : null}
      {confirm ? (
        <ConfirmPanel
          action={confirm}
          detailPath={detailPath}
          constraint={constraints.staffAction}
          lastResult={actionData?.form === "staffAction" ? actionData.result : undefined}
        />
      ) : (
        <ul className="admin-actions__list">
          {available.map((action) => (
            <li key={action}>
              {/* A link, not a post: asking to confirm changes nothing, and works without JavaScript. */}
              <AppLink className="button button--secondary" to={`${detailPath}?confirm=${action}`}>
                {t(`actions.${actionKey(action)}.button`)}
              </AppLink>
            </li>
          ))}
        </ul>
      )}
      {staffAccount ? null : (
        <EmailChangePanel
          currentEmail={currentEmail}
          detailPath={detailPath}
          constraint={constraints.emailChange}
          lastResult={actionData?.form === "emailChange" ? actionData.result : undefined}
          review={actionData && "review" in actionData ? actionData.review : keptEmail}
        />
      )}
    </section>
  );
}

/**
 * Why a staff member's page offers no change, and the refusal of a post that asked for one anyway (a page older
 * than the member's promotion, or a forged post): the page shows no form the refusal could sit on.
 */
function StaffAccountNotice({ actionData }: { actionData: ActionData }) {
  const { t } = useTranslation("admin");
  const refusal = actionData?.result.error?.[""]?.[0];
  return (
    <>
      {refusal ? (
        <p role="alert" className="form-alert">
          {refusal}
        </p>
      ) : null}
      <p data-testid="staff-account-notice">{t("actions.staffAccount")}</p>
    </>
  );
}

/** The locale key of an action ("sessions-end" → "sessionsEnd"). */
function actionKey(action: ConfirmedStaffAction) {
  return action === "sessions-end" ? "sessionsEnd" : action === "two-step-off" ? "twoStepOff" : action;
}

function ConfirmPanel({
  action,
  detailPath,
  constraint,
  lastResult,
}: {
  action: ConfirmedStaffAction;
  detailPath: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  const [form] = useSchemaForm<typeof StaffActionSchema>(constraint, lastResult, { defaultValue: { intent: action } });
  return (
    <Form
      method="post"
      action={detailPath}
      {...getFormProps(form)}
      className="admin-confirm"
      data-testid="confirm-panel"
    >
      <FormAlert form={form} />
      <p>{t(`actions.${actionKey(action)}.confirm`)}</p>
      <input type="hidden" name="intent" value={action} />
      <div className="admin-filters__actions">
        <Button variant={action === "disable" ? "danger" : "primary"} pending={navigation.state === "submitting"}>
          {t(`actions.${actionKey(action)}.submit`)}
        </Button>
        <AppLink to={detailPath}>{t("actions.cancel")}</AppLink>
      </div>
    </Form>
  );
}

function EmailChangePanel({
  currentEmail,
  detailPath,
  constraint,
  lastResult,
  review,
}: {
  currentEmail: string;
  detailPath: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
  review: string | null;
}) {
  const { t } = useTranslation("admin");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof StaffEmailChangeSchema>(constraint, lastResult);
  if (review) {
    return (
      <Form method="post" action={detailPath} className="admin-confirm" data-testid="email-change-review">
        <p>{t("actions.emailChange.confirm")}</p>
        <dl className="admin-facts">
          <dt>{t("actions.emailChange.from")}</dt>
          <dd>{currentEmail}</dd>
          <dt>{t("actions.emailChange.to")}</dt>
          <dd>{review}</dd>
        </dl>
        <input type="hidden" name="email" value={review} />
        <input type="hidden" name="intent" value="email-change" />
        <div className="admin-filters__actions">
          <Button pending={navigation.state === "submitting"}>{t("actions.emailChange.submit")}</Button>
          <AppLink to={detailPath}>{t("actions.cancel")}</AppLink>
        </div>
      </Form>
    );
  }
  return (
    <Form method="post" action={detailPath} {...getFormProps(form)} className="form admin-email-change">
      <FormAlert form={form} />
      <InputField
        label={t("actions.emailChange.newEmail")}
        errors={fields.email.errors}
        inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "off" }}
      />
      <input type="hidden" name="intent" value="review-email-change" />
      <Button variant="secondary" pending={navigation.state === "submitting"}>
        {t("actions.emailChange.review")}
      </Button>
    </Form>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
