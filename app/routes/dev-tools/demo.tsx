import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, redirect } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { formConstraint } from "~/forms/schema-form.server";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { movePasswordTimeBack } from "~/domain/account/reauthentication.server";
import { PasswordTimeShiftSchema } from "~/domain/forms/dev-tools-schemas";
import { useTranslation } from "~/i18n/use-translation";
import { AppLink } from "~/components/app-link";
import { useRootData } from "~/components/use-root-data";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { requireMember } from "~/middleware/require-member.server";
import { staffSessionCookie } from "~/cookies/app-cookies.server";
import { moveStaffSessionTimeBack } from "~/domain/sessions/staff-sessions.server";
import { requireDevTools } from "~/routing/dev-tools-only.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/demo";

export async function loader({ request, context }: Route.LoaderArgs) {
  const t = getInstance(context).getFixedT(null, "devtools");
  return {
    title: t("documentTitle", { title: t("demo.title") }),
    sessionClockConstraint: formConstraint(PasswordTimeShiftSchema),
    staffSession: staffSessionCookie.isPresent(servicesOf(context).config, request),
  };
}

/**
 * The session clock: moves the signed-in browser's password time back, as if minutes had passed, for the browser
 * tests of the password step, and the browser's staff session's times (its idle end, its confirmation). Production
 * has no such control: the layout's guard covers page views, and an action checks for itself.
 */
export async function action({ request, url, context }: Route.ActionArgs) {
  requireDevTools(context);
  const { config, db } = servicesOf(context);
  const staffSession = await staffSessionCookie.read(config, request);
  const member = staffSession ? getMember(context) : requireMember(context, url);
  return handleFormPost(context, await request.formData(), { schema: PasswordTimeShiftSchema }, async ({ minutes }) => {
    if (member) await movePasswordTimeBack(db, { sub: member.sub, sessionId: member.sessionId, minutes });
    if (staffSession) await moveStaffSessionTimeBack(db, { sessionId: staffSession.sid, minutes });
    return redirect(`${pathFor("demo", getLocale(context))}?moved=${minutes}`);
  });
}

/** The internal tools' front page, and what the current request looks like to the layout (theme, member). */
export default function DemoPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("devtools");
  const { t: tc } = useTranslation();
  const { locale, theme, member } = useRootData();
  return (
    <div className="content">
      <h1>{t("demo.title")}</h1>
      <p>{t("demo.intro")}</p>
      <h2>{t("demo.tools")}</h2>
      <ul>
        <li>
          <AppLink to={pathFor("rebranding-debugs", locale)}>{t("demo.designDebug")}</AppLink>
        </li>
        <li>
          <AppLink to={pathFor("dev-mailbox", locale)}>{t("demo.mailbox")}</AppLink>
        </li>
        <li>
          <AppLink to={pathFor("dev-events", locale)}>{t("demo.events")}</AppLink>
        </li>
      </ul>
      <h2>{t("demo.state")}</h2>
      <dl className="definition-list">
        <dt>{t("demo.locale")}</dt>
        <dd>{locale}</dd>
        <dt>{t("demo.theme")}</dt>
        <dd>
          {tc(`services.${theme}`)} ({theme})<br />
          <small>{t("demo.themeNote")}</small>
        </dd>
        <dt>{t("demo.member")}</dt>
        <dd>{member ? t("demo.signedIn", { name: member.displayName }) : t("demo.signedOut")}</dd>
      </dl>
      {member || loaderData.staffSession ? (
        <SessionClockForm constraint={loaderData.sessionClockConstraint} lastResult={actionData?.result} />
      ) : null}
      <h2>{t("demo.shortcuts")}</h2>
      <p>
        <kbd>Ctrl</kbd>+<kbd>G</kbd>
        {t("demo.gridShortcut")}
      </p>
    </div>
  );
}

function SessionClockForm({
  constraint,
  lastResult,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("devtools");
  const [form, fields] = useSchemaForm<typeof PasswordTimeShiftSchema>(constraint, lastResult);
  return (
    <>
      <h2>{t("sessionClock.title")}</h2>
      <p>{t("sessionClock.intro")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("sessionClock.minutes")}
          errors={fields.minutes.errors}
          inputProps={{
            ...getInputProps(fields.minutes, { type: "text" }),
            autoComplete: "off",
            inputMode: "numeric",
            enterKeyHint: "done",
          }}
        />
        <Button block>{t("sessionClock.submit")}</Button>
      </Form>
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "robots", content: "noindex" },
];
