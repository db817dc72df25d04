import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, redirect } from "react-router";
import { handleFormPost } from "~/components/form/form-action.server";
import { formConstraint } from "~/components/form/schema-form.server";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { movePasswordTimeBack } from "~/domain/account/reauthentication.server";
import { PasswordTimeShiftSchema } from "~/domain/forms/dev-tools-schemas";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { requireMember } from "~/middleware/require-member.server";
import { requireDevTools } from "~/routing/dev-tools-only.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/dev-session-clock";

export function loader({ request, context }: Route.LoaderArgs) {
  requireDevTools(context);
  requireMember(context, request);
  const t = getInstance(context).getFixedT(null, "devtools");
  return {
    title: t("documentTitle", { title: t("sessionClock.title") }),
    constraint: formConstraint(PasswordTimeShiftSchema),
  };
}

/** Production has no such control: the layout's guard covers page views, and actions check for themselves. */
export async function action({ request, context }: Route.ActionArgs) {
  requireDevTools(context);
  const member = requireMember(context, request);
  return handleFormPost(context, await request.formData(), { schema: PasswordTimeShiftSchema }, async ({ minutes }) => {
    await movePasswordTimeBack(servicesOf(context).db, { sub: member.sub, sessionId: member.sessionId, minutes });
    return redirect(`${pathFor("dev-session-clock", getLocale(context))}?moved=${minutes}`);
  });
}

/** The browser's own session as if minutes had passed since its password was typed (development and preview only). */
export default function SessionClockPage({ loaderData, actionData }: Route.ComponentProps) {
  return <SessionClockForm constraint={loaderData.constraint} lastResult={actionData?.result} />;
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
    <section className="content">
      <h1>{t("sessionClock.title")}</h1>
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
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
