import { type SubmissionResult, getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form, data, redirect, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { DeactivateDeviceForm, type DeviceRow, DeviceTable } from "~/components/device-table";
import { useClearAfterServerError } from "~/components/use-clear-after-server-error";
import { ErrorList, FormField } from "~/components/form-field";
import { SignInSchema } from "~/domain/auth-schemas";
import { displayName } from "~/domain/display-name.server";
import { DomainError } from "~/domain/domain-error.server";
import { domainErrorOf, messageKeyOf, replyWithDomainError } from "~/errors/error-responses.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
import { readPendingSignIn } from "~/middleware/session-cookies.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/services.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/sign-in";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import {
  abandonPendingSignIn,
  continuePendingSignIn,
  deactivateForPendingSignIn,
  devicesForPendingSignIn,
  returnTargetFrom,
  signInWithPassword,
} from "./sign-in.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const locale = getLocale(context);
  const translations = loadTranslations(context, ["auth", "forms", "toasts"]);
  const title = getInstance(context).t("auth:signIn.title");
  const member = getMember(context);
  const services = servicesOf(context);
  if (member) {
    return {
      view: "alreadySignedIn" as const,
      title,
      translations,
      name: displayName(member, locale),
      email: member.email,
      continueTo: await returnTargetFrom(services.config, request, locale),
    };
  }
  const pending = await readPendingSignIn(request);
  const devices = pending ? await devicesForPendingSignIn(services, pending) : null;
  if (devices) {
    return {
      view: "deviceLimit" as const,
      title,
      translations,
      deviceLimit: services.config.deviceLimit,
      devices: devices.map((device) => ({ ...device, lastLoginAt: device.lastLoginAt.toISOString() })),
    };
  }
  return { view: "form" as const, title, translations };
}

export async function action({ request, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const here = `${pathFor("auth-sign-in", locale)}${new URL(request.url).search}`;
  const toasts = getToastUtils();
  const pending = await readPendingSignIn(request);
  const services = servicesOf(context);

  if (intent === "deactivate" && pending) {
    const ended = await deactivateForPendingSignIn(services, pending, String(formData.get("device") ?? ""));
    return ended
      ? toasts.redirectWithSuccess(here, { message: "deviceDeactivated", values: { device: ended.deviceName } })
      : toasts.redirectWithError(here, "deviceDeactivateFailed");
  }
  if (intent === "continue" && pending) {
    // Cognito down or throttling: the sign-in stays held (no slot taken) and the screen says why.
    const continued = await continuePendingSignIn(services, pending).catch(domainErrorOf);
    if (continued instanceof DomainError) return toasts.redirectWithError(here, messageKeyOf(continued));
    const { outcome, setCookies } = continued;
    if (outcome.kind === "active" && setCookies) {
      return toasts.redirectWithSuccess(await returnTargetFrom(services.config, request, locale), "loggedIn", { headers: toHeaders(setCookies) });
    }
    if (outcome.kind === "deviceLimit") return toasts.redirectWithInfo(here, "deviceLimitExceeded");
    return toasts.redirectWithError(here, "loginFailed", { headers: toHeaders(await abandonPendingSignIn(services, pending)) });
  }
  if (intent === "back" && pending) {
    throw redirect(here, { headers: toHeaders(await abandonPendingSignIn(services, pending)) });
  }

  const submission = parseWithZod(formData, { schema: SignInSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const limited = await checkAttemptLimit(context, "signIn", submission.value.email);
  if (limited) {
    return data({ result: submission.reply({ formErrors: [limited.formError], hideFields: ["password"] }) }, limited.init);
  }
  try {
    const { result, setCookies } = await signInWithPassword(services, request, submission.value);
    if (result.kind === "deviceLimit") throw redirect(here, { headers: toHeaders(setCookies) });
    return toasts.redirectWithSuccess(await returnTargetFrom(services.config, request, locale), "loggedIn", { headers: toHeaders(setCookies) });
  } catch (error) {
    return replyWithDomainError(submission, error, { hideFields: ["password"] });
  }
}

function toHeaders(setCookies: string[]): Headers {
  const headers = new Headers();
  for (const cookie of setCookies) headers.append("Set-Cookie", cookie);
  return headers;
}

export default function SignInPage({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.view === "alreadySignedIn") return <AlreadySignedIn {...loaderData} />;
  if (loaderData.view === "deviceLimit") return <DeviceLimit {...loaderData} />;
  return <SignInForm lastResult={actionData?.result} />;
}

function SignInForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const { t, i18n } = useTranslation("auth");
  const navigation = useNavigation();
  const [form, fields] = useForm({
    lastResult,
    constraint: getZodConstraint(SignInSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SignInSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  useClearAfterServerError(lastResult, fields.password.id);
  return (
    <section className="content auth-page">
      <h1>{t("signIn.title")}</h1>
      <p>{t("signIn.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <div role="alert" id={form.errorId}>
          <ErrorList errors={form.errors} />
        </div>
        <FormField
          label={t("signIn.email")}
          errors={fields.email.errors}
          inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "username" }}
        />
        <FormField
          label={t("signIn.password")}
          errors={fields.password.errors}
          inputProps={{ ...getInputProps(fields.password, { type: "password" }), autoComplete: "current-password" }}
        />
        <Button name="intent" value="sign-in" pending={navigation.state === "submitting"} block>
          {t("signIn.submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("auth-forgot-password", i18n.language)}>{t("signIn.forgotPassword")}</AppLink>
      </p>
    </section>
  );
}

function AlreadySignedIn({ name, email, continueTo }: { name: string; email: string; continueTo: string }) {
  const { t } = useTranslation("auth");
  return (
    <section className="content auth-page">
      <h1>{t("alreadySignedIn.title")}</h1>
      <p>{t("alreadySignedIn.lead")}</p>
      <dl className="definition-list">
        <dt>{t("alreadySignedIn.name")}</dt>
        <dd>{name}</dd>
        <dt>{t("alreadySignedIn.email")}</dt>
        <dd>{email}</dd>
      </dl>
      <p>
        <AppLink className="button button--primary" to={continueTo} reloadDocument={/^https?:/.test(continueTo)}>
          {t("alreadySignedIn.continue")}
        </AppLink>
      </p>
    </section>
  );
}

function DeviceLimit({
  deviceLimit,
  devices,
}: {
  deviceLimit: number;
  devices: DeviceRow[];
}) {
  const { t } = useTranslation("auth");
  return (
    <section className="content auth-page device-limit">
      <h1>{t("deviceLimit.title")}</h1>
      <p>{t("deviceLimit.lead", { deviceLimit })}</p>
      <p data-testid="device-count">{t("deviceLimit.count", { count: devices.length })}</p>
      <DeviceTable
        devices={devices}
        action={(device) => <DeactivateDeviceForm device={device} />}
      />
      <Form method="post" className="actions">
        <Button name="intent" value="continue">
          {t("deviceLimit.continue")}
        </Button>
        <Button name="intent" value="back" variant="text">
          {t("deviceLimit.back")}
        </Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
