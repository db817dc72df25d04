import type { ReactNode } from "react";
import type { Resources } from "~/i18n/resources";
import { useTranslation } from "~/i18n/use-translation";
import { Form } from "react-router";
import { AdminShell } from "~/components/admin-shell";
import { Button, buttonClassName } from "~/components/button";
import { ErrorPage } from "~/components/error-page";
import { CheckboxField, ErrorList, InputField, SelectField } from "~/components/form/fields";
import { SiteHeader } from "~/components/site-header";
import { type DeviceRow, DeviceTable } from "~/components/device-table";
import { type ToastKind, ToastMessage } from "~/components/toast-region";
import { UserMenu } from "~/components/user-menu";
import { useRootData } from "~/components/use-root-data";
import type { RootData } from "~/root.server";
import type { DebugPage } from "./debug-pages";

type Theme = RootData["theme"];
type Member = NonNullable<RootData["member"]>;

const THEMES: readonly Theme[] = ["id", "data", "compe", "online", "shop"];
const COMPACT_THEMES: readonly Theme[] = ["id", "compe", "online"];
const MENU_THEME: Record<"b-1-1" | "b-1-2" | "b-1-3" | "b-1-4" | "b-1-5", Theme> = {
  "b-1-1": "id",
  "b-1-2": "data",
  "b-1-3": "compe",
  "b-1-4": "online",
  "b-1-5": "shop",
};

/** The body of one design-debug subpage. */
export function DebugSection({ page, errorStatus }: { page: DebugPage; errorStatus: number }) {
  switch (page) {
    case "a-1":
      return <HeaderPreviews themes={THEMES} signedIn={[false]} />;
    case "a-1a":
      return <HeaderPreviews themes={THEMES} signedIn={[true]} longName />;
    case "a-1-pattern2":
      return <HeaderPreviews themes={[...COMPACT_THEMES, "data"]} signedIn={[false, true]} hint="narrowHint" />;
    case "a-2":
      return <WideHeaderPage />;
    case "b-1-1":
    case "b-1-2":
    case "b-1-3":
    case "b-1-4":
    case "b-1-5":
      return <HeaderPreviews themes={[MENU_THEME[page]]} signedIn={[false, true]} hint="menuHint" />;
    case "c-1":
      return <UserMenuPreview signedIn={false} />;
    case "c-2":
      return <UserMenuPreview signedIn />;
    case "d-1-1":
      return <TextFieldSamples />;
    case "d-1-2":
      return <SelectFieldSamples />;
    case "e-2-1":
      return <ButtonKinds />;
    case "e-2-2":
      return <ButtonStates />;
    case "f-2-1":
      return <ToastKinds />;
    case "f-2-2":
      return <ToastTexts />;
    case "g-2":
      return <AdminShellPreview />;
    case "i-2-1":
      return <ErrorPage status={404} />;
    case "i-2-2":
      return <ServerErrorPreview status={errorStatus} />;
    case "j-1-1":
      return <DeviceListSample overLimit={false} />;
    case "j-1-2":
      return <DeviceListSample overLimit />;
    case "toast":
      return <ToastTrigger />;
  }
}

function useSampleMember(long = false): Member {
  const { t } = useTranslation("devtools");
  return long
    ? { displayName: t("sample.longMemberName"), email: t("sample.longMemberEmail") }
    : { displayName: t("sample.memberName"), email: t("sample.memberEmail") };
}

function Preview({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="design-preview">
      <h2 className="design-preview__title">{title}</h2>
      <div className="design-preview__stage">{children}</div>
    </section>
  );
}

function HeaderPreviews({
  themes,
  signedIn,
  longName = false,
  hint = "widthHint",
}: {
  themes: readonly Theme[];
  signedIn: readonly boolean[];
  longName?: boolean;
  hint?: "widthHint" | "narrowHint" | "menuHint";
}) {
  const { t } = useTranslation("devtools");
  const { t: tc } = useTranslation();
  const member = useSampleMember(longName);
  return (
    <>
      <p className="design-note">{t(`debug.${hint}`)}</p>
      {themes.flatMap((theme) =>
        signedIn.map((isSignedIn) => (
          <Preview
            key={`${theme}-${isSignedIn}`}
            title={`${tc(`services.${theme}`)}: ${isSignedIn ? t("debug.loggedIn") : t("debug.loggedOut")}`}
          >
            <SiteHeader theme={theme} member={isSignedIn ? member : null} />
          </Preview>
        )),
      )}
    </>
  );
}

/** Tall enough to scroll well past the 64px the wide header gives up, with markers to see where it happens. */
function WideHeaderPage() {
  const { t } = useTranslation("devtools");
  // Each marker row is 120px high (dev-tools.css).
  const markers = Array.from({ length: 24 }, (_, index) => index * 120);
  return (
    <>
      <p className="design-note">{t("debug.wideHint")}</p>
      <ol className="scroll-markers">
        {markers.map((px) => (
          <li key={px}>{t("debug.scrollMarker", { px })}</li>
        ))}
      </ol>
    </>
  );
}

function UserMenuPreview({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation("devtools");
  const member = useSampleMember();
  const { theme } = useRootData();
  return (
    <>
      <p className="design-note">{t("debug.widthHint")}</p>
      <Preview title={signedIn ? t("debug.loggedIn") : t("debug.loggedOut")}>
        <div className="design-preview__bar" data-theme={theme}>
          <UserMenu member={signedIn ? member : null} />
        </div>
      </Preview>
    </>
  );
}

function TextFieldSamples() {
  const { t } = useTranslation("devtools");
  return (
    <fieldset className="design-fieldset">
      <legend>{t("debug.fieldsLegend")}</legend>
      <InputField
        label={t("debug.fields.email")}
        inputProps={{ name: "email", type: "email", required: true, autoComplete: "off" }}
      />
      <InputField
        label={t("debug.fields.email")}
        inputProps={{ name: "email-invalid", type: "email", required: true, autoComplete: "off" }}
        errors={["validation.required"]}
      />
      <InputField
        label={t("debug.fields.password")}
        hint={t("debug.fields.passwordHint")}
        inputProps={{
          name: "password",
          type: "password",
          required: true,
          autoComplete: "new-password",
          defaultValue: "short",
        }}
        errors={["validation.passwordTooShort"]}
      />
      <InputField
        label={t("debug.fields.organization")}
        inputProps={{ name: "organization", defaultValue: t("sample.memberName") }}
      />
      <InputField
        label={t("debug.fields.birthYear")}
        hint={t("debug.fields.birthYearHint")}
        inputProps={{ name: "birthYear", inputMode: "numeric", required: true }}
        errors={["validation.required", "validation.inputError"]}
      />
      <InputField
        label={t("debug.fields.code")}
        inputProps={{ name: "code", inputMode: "numeric", autoComplete: "one-time-code", required: true }}
        errors={["validation.codeRequired"]}
      />
    </fieldset>
  );
}

function SelectFieldSamples() {
  const { t } = useTranslation("devtools");
  const { t: tf } = useTranslation("forms");
  const countries = [
    { value: "JP", label: t("debug.options.japan") },
    { value: "other", label: t("debug.options.other") },
  ];
  const occupations = [
    { value: "architect", label: t("debug.options.architect") },
    { value: "student", label: t("debug.options.student") },
  ];
  return (
    <fieldset className="design-fieldset">
      <legend>{t("debug.fieldsLegend")}</legend>
      <ErrorList errors={["validation.inputError", "validation.selectError"]} />
      <SelectField
        label={t("debug.fields.country")}
        selectProps={{ name: "country", required: true, defaultValue: "" }}
        options={countries}
        placeholder={tf("validation.selectRequired")}
        errors={["validation.selectRequired"]}
      />
      <SelectField
        label={t("debug.fields.occupation")}
        selectProps={{ name: "occupation", required: true, defaultValue: "architect" }}
        options={occupations}
        placeholder={tf("validation.selectRequired")}
      />
      <SelectField
        label={t("debug.fields.country")}
        selectProps={{ name: "country-disabled", disabled: true, defaultValue: "JP" }}
        options={countries}
      />
      <AgreementSample />
    </fieldset>
  );
}

/** A consent checkbox with its error. */
function AgreementSample() {
  const { t } = useTranslation("devtools");
  return (
    <CheckboxField
      label={t("debug.fields.agreeTerms")}
      errors={["validation.agree"]}
      inputProps={{ id: "agree-sample", name: "agree" }}
    />
  );
}

function ButtonKinds() {
  const { t } = useTranslation("devtools");
  return (
    <div className="design-row">
      <Button type="button">{t("debug.buttons.primary")}</Button>
      <Button type="button" variant="secondary">
        {t("debug.buttons.secondary")}
      </Button>
      <Button type="button" variant="danger">
        {t("debug.buttons.danger")}
      </Button>
      <Button type="button" variant="text">
        {t("debug.buttons.text")}
      </Button>
      <a className={buttonClassName({ variant: "secondary" })} href="#main">
        {t("debug.buttons.link")}
      </a>
    </div>
  );
}

function ButtonStates() {
  const { t } = useTranslation("devtools");
  return (
    <>
      <div className="design-row">
        <Button type="button" disabled>
          {t("debug.buttons.disabled")}
        </Button>
        <Button type="button" variant="secondary" disabled>
          {t("debug.buttons.disabled")}
        </Button>
        <Button type="button" pending>
          {t("debug.buttons.pending")}
        </Button>
      </div>
      <div className="design-column">
        <Button type="button" block>
          {t("debug.buttons.block")}
        </Button>
      </div>
    </>
  );
}

const TOAST_SAMPLES = [
  { kind: "success", message: "changesSaved" },
  { kind: "error", message: "internalError" },
  { kind: "info", message: "deviceLimitExceeded" },
] as const;

function ToastKinds() {
  const { t } = useTranslation("devtools");
  const { t: toastText } = useTranslation("toasts");
  return (
    <div className="design-column">
      {TOAST_SAMPLES.map((sample) => (
        <Preview key={sample.kind} title={t(`debug.toasts.${sample.kind}`)}>
          <ToastMessage kind={sample.kind} text={toastText(sample.message)} pinned />
        </Preview>
      ))}
    </div>
  );
}

// Every toast the app shows, by kind; the device-limit notice is advice, so it is info.
const TOAST_CATALOGUE: Record<ToastKind, (keyof Resources["toasts"] & string)[]> = {
  success: [
    "loggedOut",
    "loggedIn",
    "passwordChanged",
    "emailChanged",
    "profileChanged",
    "cancellationDone",
    "changesSaved",
    "deviceDeactivated",
  ],
  error: [
    "loginAttemptLimitExceeded",
    "codeMismatch",
    "authenticatorCodeMismatch",
    "emailUnavailable",
    "loginFailed",
    "expiredUrl",
    "currentPasswordMismatch",
    "cancellationPasswordMismatch",
    "internalError",
    "attemptLimitExceeded",
    "deviceDeactivateFailed",
  ],
  info: ["deviceLimitExceeded"],
};

function ToastTexts() {
  const { t } = useTranslation("devtools");
  const { t: toastText } = useTranslation("toasts");
  const device = "iPhone / Safari";
  return (
    <>
      {(Object.keys(TOAST_CATALOGUE) as ToastKind[]).map((kind) => (
        <Preview key={kind} title={t(`debug.toasts.${kind}`)}>
          <ul className="design-toast-list">
            {TOAST_CATALOGUE[kind].map((key) => (
              <li key={key}>
                <ToastMessage kind={kind} text={toastText(key, { device })} pinned />
              </li>
            ))}
          </ul>
        </Preview>
      ))}
    </>
  );
}

function AdminShellPreview() {
  const { t } = useTranslation("devtools");
  const { t: ta } = useTranslation("admin");
  return (
    <Preview title={t("debugPages.g-2.title")}>
      <AdminShell>
        <h2>{ta("users")}</h2>
        <p>{t("debug.adminSample")}</p>
      </AdminShell>
    </Preview>
  );
}

function ServerErrorPreview({ status }: { status: number }) {
  const { t } = useTranslation("devtools");
  return (
    <>
      <ul className="design-row" aria-label={t("debug.statusSwitch")}>
        {[500, 503].map((code) => (
          <li key={code}>
            <a href={`?status=${code}`} aria-current={code === status ? "page" : undefined}>
              {code}
            </a>
          </li>
        ))}
      </ul>
      <ErrorPage status={status} />
    </>
  );
}

// Device and browser names are what the device record stores, not interface text, so they are not translated.
const SAMPLE_DEVICES: DeviceRow[] = [
  {
    id: "sample-1",
    deviceName: "Windows",
    browser: "Chrome",
    lastLoginAt: "2024-04-01T09:30:00+09:00",
    lastActiveAt: "2024-04-01T10:15:00+09:00",
    ipAddress: "192.0.2.10",
    current: true,
  },
  {
    id: "sample-2",
    deviceName: "iOS",
    browser: "Safari",
    lastLoginAt: "2024-03-28T21:05:00+09:00",
    lastActiveAt: "2024-03-31T08:40:00+09:00",
    ipAddress: "198.51.100.7",
    current: false,
  },
  {
    id: "sample-3",
    deviceName: "macOS",
    browser: "Firefox",
    lastLoginAt: "2024-03-02T12:00:00+09:00",
    lastActiveAt: null,
    ipAddress: "203.0.113.25",
    current: false,
  },
  {
    id: "sample-4",
    deviceName: "Android",
    browser: "Chrome",
    lastLoginAt: "2024-02-14T08:45:00+09:00",
    lastActiveAt: null,
    ipAddress: null,
    current: false,
  },
];
const SAMPLE_DEVICE_LIMIT = 3;

function DeviceListSample({ overLimit }: { overLimit: boolean }) {
  const { t } = useTranslation("devtools");
  const { t: toastText } = useTranslation("toasts");
  const { t: authText } = useTranslation("auth");
  const devices = overLimit ? SAMPLE_DEVICES : SAMPLE_DEVICES.slice(0, 2);
  return (
    <section className="device-list" aria-labelledby="device-list-title">
      <p className="design-note design-note--sample" role="note">
        {t("debug.sampleNotice")}
      </p>
      <h2 id="device-list-title">{t("debug.devices.heading")}</h2>
      {overLimit ? <p className="notice notice--warning">{toastText("deviceLimitExceeded")}</p> : null}
      <p>{t("debug.devices.count", { count: devices.length, limit: SAMPLE_DEVICE_LIMIT })}</p>
      <p className="device-list__note">{t("debug.devices.limitNote", { limit: SAMPLE_DEVICE_LIMIT })}</p>
      <DeviceTable
        devices={devices}
        currentLabel={authText("deviceLimit.current")}
        action={(device) => (
          // A sample: nothing to deactivate, so the button only shows its look.
          <Button type="button" variant="secondary" disabled={device.current}>
            {t("debug.devices.deactivate")}
          </Button>
        )}
      />
      {overLimit ? (
        <div className="design-row">
          <Button type="button" disabled>
            {t("debug.devices.continue")}
          </Button>
          <Button type="button" variant="text">
            {t("debug.devices.back")}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function ToastTrigger() {
  const { t } = useTranslation("devtools");
  return (
    <Form method="post" className="design-row">
      {TOAST_SAMPLES.map((sample) => (
        <Button key={sample.kind} name="kind" value={sample.kind} variant="secondary">
          {t("debug.toasts.send", { kind: t(`debug.toasts.${sample.kind}`) })}
        </Button>
      ))}
      <Button name="kind" value="failure" variant="secondary">
        {t("debug.toasts.fail")}
      </Button>
    </Form>
  );
}
