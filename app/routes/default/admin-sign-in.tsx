import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { Form, type ShouldRevalidateFunctionArgs, data, redirect, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { AuthenticatorSetupForm } from "~/components/authenticator-setup-form";
import { RecoveryCodeList } from "~/components/recovery-code-list";
import { AuthenticatorCodeField } from "~/components/form/authenticator-code-field";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { Button } from "~/components/button";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { FormAlert, InputField, ReadOnlyEmailField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { assertPasskey, usePasskeyCeremony, usePasskeySupport } from "~/components/passkeys/passkey-ceremony";
import {
  sessionCookie,
  staffCodeChallengeCookie,
  staffFactorSetupCookie,
  staffPasskeyStepCookie,
  staffSessionCookie,
} from "~/cookies/app-cookies.server";
import { toDomainError } from "~/domain/domain-error.server";
import { SignInSchema } from "~/domain/forms/sign-in-schemas";
import { AuthenticatorCodeSchema } from "~/domain/forms/two-step-schemas";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { beginStaffSignIn, completeStaffSignIn, endStaffSessions } from "~/domain/sessions/staff-sessions.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { getStaff, staffSessionMiddleware } from "~/middleware/staff-session.server";
import { resolveReturnTarget } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/admin-sign-in";
import {
  readStaffFactorSetup,
  readStaffPasskeyStep,
  staffFactorSetupAction,
  staffFactorSetupView,
  staffPasskeyAction,
  startStaffPasskeyStep,
} from "./admin-sign-in.server";

/**
 * The staff area's own sign-in (app/domain/sessions/staff-sessions.server.ts): the password, then the authenticator
 * app's code, through the staff app client, whether or not the browser is signed in as a member. Staff whose only
 * second factor is a passkey use it after the password instead (admin-sign-in.server.ts; it needs JavaScript).
 * Staff with no second factor at all set the authenticator app up here, right after the password, and its first
 * code opens the staff session (admin-sign-in.server.ts): one password, one set-up, one code on a first visit.
 * `mode=confirm`: a staff member asked again before a high-impact action. `to`: the staff page to go back to. Its
 * sign-out ends the staff session and the member session.
 */
export const middleware: Route.MiddlewareFunction[] = [staffSessionMiddleware];

/** The page to go to once signed in: a page of ours, the staff dashboard by default. */
function targetOf(url: URL, locale: ReturnType<typeof getLocale>): string {
  const to = url.searchParams.get("to");
  const target = resolveReturnTarget(to, locale, []);
  return target?.startsWith("/") ? target : pathFor("admin", locale);
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { config, clock } = servicesOf(context);
  const locale = getLocale(context);
  const staff = getStaff(context);
  const confirm = url.searchParams.get("mode") === "confirm";
  if (staff && !confirm) throw redirect(targetOf(url, locale));
  const services = servicesOf(context);
  const challenge = await staffCodeChallengeCookie.read(config, request);
  const live = challenge && challenge.expiresAt > clock.now().getTime() ? challenge : null;
  const setup = live ? null : await readStaffFactorSetup(services, request);
  const passkeyStep = live || setup ? null : await readStaffPasskeyStep(services, request);
  const view = live ? "code" : setup ? "setup" : passkeyStep ? "passkey" : "password";
  const t = getInstance(context).t;
  return {
    view,
    confirm,
    title: t(setup ? "staffSession:setupTitle" : confirm ? "staffSession:confirmTitle" : "staffSession:title"),
    translations: loadTranslations(context, [
      "staffSession",
      FORM_FIELD_TEXTS,
      { namespace: "passkeys", keys: ["toasts.cancelled", "errors.refused"] },
      // The set-up and the recovery codes after it, which a post without JavaScript shows with its set-up ended.
      ...(setup || (await staffFactorSetupCookie.read(config, request)) ? [TWO_STEP_TEXTS] : []),
    ]),
    setup: setup ? await staffFactorSetupView(services, setup) : null,
    // Prefilled: the address of the challenge, of the staff session being confirmed, or of the member signed in.
    email: live?.email ?? setup?.email ?? passkeyStep?.email ?? staff?.email ?? getMember(context)?.email ?? "",
    constraint: formConstraint(live || setup ? AuthenticatorCodeSchema : SignInSchema),
  };
}

const TWO_STEP_TEXTS = { namespace: "account", keys: ["twoStep"] } as const;

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const { config, clock } = services;
  const locale = getLocale(context);
  const here = `${pathFor("admin-sign-in", locale)}${url.search}`;
  const formData = await request.formData();
  const intent = formData.get("intent");
  const toasts = getToastUtils(context);

  if (intent === "sign-out") return signOut(context, request);
  if (intent === "start-over") {
    const headers = new Headers();
    headers.append("Set-Cookie", await staffCodeChallengeCookie.clear(config));
    headers.append("Set-Cookie", await staffPasskeyStepCookie.clear(config));
    throw redirect(here, { headers });
  }
  if (intent === "confirm" || intent === "cancel") {
    return staffFactorSetupAction(context, request, { formData, intent, here, target: targetOf(url, locale) });
  }
  if (intent === "passkey-options" || intent === "passkey") {
    return staffPasskeyAction(context, request, { formData, intent, here, target: targetOf(url, locale) });
  }

  if (intent === "code") {
    const challenge = await staffCodeChallengeCookie.read(config, request);
    /** The challenge is gone or Cognito's session ran out: the password again, told why. */
    const startOver = async () =>
      toasts.redirectWithError(here, "codeStepExpired", {
        headers: new Headers({ "Set-Cookie": await staffCodeChallengeCookie.clear(config) }),
      });
    if (!challenge || challenge.expiresAt <= clock.now().getTime()) return startOver();
    return handleFormPost(
      context,
      formData,
      {
        schema: AuthenticatorCodeSchema,
        extra: { form: "code" as const },
        hideFields: ["code"],
        attemptLimit: () => ({ action: "signIn" }),
        errorFields: { authenticatorCodeMismatch: "code" },
      },
      async ({ code }, reply) => {
        const previous = await staffSessionCookie.read(config, request);
        const opened = await completeStaffSignIn(services, {
          ...challenge,
          code,
          previousSessionId: previous?.sid,
        }).catch(async (error: unknown) => {
          if (toDomainError(error)?.code === "challengeExpired") return null;
          throw error;
        });
        if (!opened) return startOver();
        const headers = new Headers();
        headers.append("Set-Cookie", await staffCodeChallengeCookie.clear(config));
        if (opened.kind === "notStaff") {
          return data(
            { form: "code" as const, result: reply({ formErrors: ["staffSession:notStaff"] }) },
            { status: 403, headers },
          );
        }
        const value = { sid: opened.sessionId, at: opened.accessToken };
        headers.append("Set-Cookie", await staffSessionCookie.serialize(config, value));
        return redirect(targetOf(url, locale), { headers });
      },
    );
  }

  return handleFormPost(
    context,
    formData,
    {
      schema: SignInSchema,
      extra: { form: "password" as const },
      hideFields: ["password"],
      signInLimit: ({ email }) => ({ door: "staff", email, request }),
    },
    async (value, reply) => {
      const started = await beginStaffSignIn(services, {
        ...value,
        userAgent: request.headers.get("User-Agent"),
        clientIp: clientIpOf(context),
        locale,
      });
      if (started.kind === "codeRequired") {
        const expiresAt = clock.now().getTime() + 15 * 60 * 1000;
        const { email, username, session } = started;
        const cookie = await staffCodeChallengeCookie.serialize(config, { email, username, session, expiresAt });
        throw redirect(here, { headers: { "Set-Cookie": cookie } });
      }
      if (started.kind === "passkeyRequired") {
        throw redirect(here, { headers: { "Set-Cookie": await startStaffPasskeyStep(services, started) } });
      }
      if (started.kind === "factorSetup") {
        const cookie = await staffFactorSetupCookie.serialize(config, { setupId: started.setupId });
        throw redirect(here, { headers: { "Set-Cookie": cookie } });
      }
      const refusal = started.kind === "passwordNotChosen" ? "staffSession:passwordNotChosen" : "staffSession:notStaff";
      return data({ form: "password" as const, result: reply({ formErrors: [refusal] }) }, { status: 403 });
    },
  );
}

/** The staff area's sign-out: the staff session and this browser's member session end, both cookies go. */
async function signOut(context: Route.ActionArgs["context"], request: Request) {
  const services = servicesOf(context);
  const { config } = services;
  const staffSessionId = getStaff(context)?.sessionId ?? (await staffSessionCookie.read(config, request))?.sid;
  if (staffSessionId) await endStaffSessions(services, { sessionId: staffSessionId });
  const memberSessionId = getMember(context)?.sessionId ?? (await sessionCookie.read(config, request))?.sid;
  if (memberSessionId) {
    await endSessions(
      services,
      { sessionId: memberSessionId },
      { record: { kind: "sign-out", clientIp: clientIpOf(context) } },
    );
  }
  const headers = new Headers();
  headers.append("Set-Cookie", await staffSessionCookie.clear(config));
  headers.append("Set-Cookie", await sessionCookie.clear(config));
  return getToastUtils(context).redirectWithSuccess(pathFor("index", getLocale(context)), "loggedOut", { headers });
}

/**
 * The set-up's last answer (the recovery codes, with the staff session's cookie) stays on the page: run again, the
 * loader would see the staff session and leave for the staff area before the codes were saved.
 */
export function shouldRevalidate({ actionResult, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return (actionResult as { form?: string } | undefined)?.form === "codes" ? false : defaultShouldRevalidate;
}

export default function StaffSignInPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("staffSession");
  const { view, confirm, email, constraint, setup } = loaderData;
  if (actionData?.form === "codes") return <RecoveryCodesStep codes={actionData.codes} target={actionData.target} />;
  const lastResult = actionData?.form === view && "result" in actionData ? actionData.result : undefined;
  const passkey = actionData?.form === "passkey" ? actionData : undefined;
  if (view === "setup" && setup) {
    return (
      <section className="content auth-page" data-testid="staff-sign-in">
        <h1>{t("setupTitle")}</h1>
        <p className="notice" data-testid="staff-setup-reason">
          {t("setupLead")}
        </p>
        <AuthenticatorSetupForm setup={setup} constraint={constraint} lastResult={lastResult} />
      </section>
    );
  }
  return (
    <section className="content auth-page" data-testid="staff-sign-in">
      <h1>{t(confirm ? "confirmTitle" : "title")}</h1>
      <p>{t(confirm ? "confirmLead" : "lead")}</p>
      {view === "code" ? (
        <CodeForm email={email} constraint={constraint} lastResult={lastResult} confirm={confirm} />
      ) : view === "passkey" ? (
        <PasskeyStep
          email={email}
          confirm={confirm}
          // The options as Cognito sent them; React Router's serialized type only loosens WebAuthn's.
          requestOptions={
            passkey && "passkeyRequestOptions" in passkey
              ? (passkey.passkeyRequestOptions as PublicKeyCredentialRequestOptionsJSON)
              : undefined
          }
          refusal={passkey && "passkeyRefusal" in passkey ? passkey.passkeyRefusal : undefined}
        />
      ) : (
        <PasswordForm email={email} constraint={constraint} lastResult={lastResult} />
      )}
      <p>{t("recoveryCodes")}</p>
    </section>
  );
}

/** The first visit's end: the recovery codes, shown once, then on into the staff area. */
function RecoveryCodesStep({ codes, target }: { codes: string[]; target: string }) {
  const { t } = useTranslation("staffSession");
  return (
    <section className="content auth-page" data-testid="staff-sign-in">
      <h1>{t("setupDoneTitle")}</h1>
      <p>{t("setupDoneLead")}</p>
      <RecoveryCodeList codes={codes} />
      <p>
        <AppLink className="button button--primary" to={target}>
          {t("setupContinue")}
        </AppLink>
      </p>
    </section>
  );
}

interface StepFormProps {
  email: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}

function PasswordForm({ email, constraint, lastResult }: StepFormProps) {
  const { t } = useTranslation("staffSession");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof SignInSchema>(constraint, lastResult, {
    defaultValue: { email },
    secretFields: ["password"],
  });
  return (
    <Form method="post" {...getFormProps(form)} className="form">
      <FormAlert form={form} />
      <InputField
        label={t("email")}
        errors={fields.email.errors}
        inputProps={{
          ...getInputProps(fields.email, { type: "email" }),
          autoComplete: "username",
          inputMode: "email",
          enterKeyHint: "next",
        }}
      />
      <CurrentPasswordField label={t("password")} field={fields.password} enterKeyHint="go" />
      <Button name="intent" value="password" pending={navigation.state === "submitting"} block>
        {t("next")}
      </Button>
    </Form>
  );
}

function CodeForm({ email, constraint, lastResult, confirm }: StepFormProps & { confirm: boolean }) {
  const { t } = useTranslation("staffSession");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof AuthenticatorCodeSchema>(constraint, lastResult, {
    secretFields: ["code"],
  });
  return (
    <>
      <p>{t("codeLead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ReadOnlyEmailField label={t("email")} email={email} />
        <AuthenticatorCodeField label={t("code")} field={fields.code} enterKeyHint="go" />
        <Button name="intent" value="code" pending={navigation.state === "submitting"} block>
          {t(confirm ? "confirmSubmit" : "submit")}
        </Button>
      </Form>
      <StartOverForm />
    </>
  );
}

function StartOverForm() {
  const { t } = useTranslation("staffSession");
  return (
    <Form method="post">
      <Button name="intent" value="start-over" variant="secondary">
        {t("startOver")}
      </Button>
    </Form>
  );
}

/**
 * The passkey as the second factor, after the password: the button asks the action for Cognito's challenge, the
 * browser uses the passkey, and its result is posted back (usePasskeyCeremony). Before the script runs, and without
 * JavaScript, the page says the passkey needs it and that the authenticator app works without.
 */
function PasskeyStep({
  email,
  confirm,
  requestOptions,
  refusal,
}: {
  email: string;
  confirm: boolean;
  requestOptions: PublicKeyCredentialRequestOptionsJSON | undefined;
  refusal: string | undefined;
}) {
  const { t } = useTranslation("staffSession");
  const { t: tPasskeys } = useTranslation("passkeys");
  const navigation = useNavigation();
  const support = usePasskeySupport();
  const problem = usePasskeyCeremony(requestOptions, assertPasskey, "passkey");
  return (
    <>
      <p>{t("passkeyLead")}</p>
      <Form method="post" className="form">
        <ReadOnlyEmailField label={t("email")} email={email} />
        {support === "yes" ? (
          <Button name="intent" value="passkey-options" pending={navigation.state === "submitting"} block>
            {t(confirm ? "passkeyConfirmSubmit" : "passkeySubmit")}
          </Button>
        ) : (
          <p className="notice">{t(support === "no" ? "passkeyUnsupported" : "passkeyNeedsJavaScript")}</p>
        )}
        {problem || refusal ? <p role="alert">{problem ? tPasskeys(problem) : refusal}</p> : null}
      </Form>
      <StartOverForm />
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
