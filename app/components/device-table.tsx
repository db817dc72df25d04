import { Form } from "react-router";
import type { ReactNode } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { Button, type ButtonVariant } from "./button";
import { CardTable } from "./card-table";

export interface DeviceRow {
  id: string;
  deviceName: string;
  browser: string;
  /** ISO 8601. */
  lastLoginAt: string;
  current: boolean;
}

/** A device's name, marked when it is this browser. Texts: "auth" namespace. */
export function DeviceName({ deviceName, current }: { deviceName: string; current: boolean }) {
  const { t } = useTranslation("auth");
  return (
    <>
      {deviceName}
      {current ? <span className="badge">{t("deviceLimit.current")}</span> : null}
    </>
  );
}

/**
 * Signed-in browsers: device, browser, last login and an action per row (Deactivate). Texts: "auth" namespace.
 */
export function DeviceTable({ devices, action }: { devices: DeviceRow[]; action: (device: DeviceRow) => ReactNode }) {
  const { t, i18n } = useTranslation("auth");
  // A fixed zone keeps the server's and the browser's text identical (no hydration mismatch).
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "Asia/Tokyo",
  });
  return (
    <CardTable
      className="device-table"
      rows={devices}
      columns={[
        { area: "device", label: t("deviceLimit.device"), cell: (device) => <DeviceName {...device} /> },
        { area: "browser", label: t("deviceLimit.browser"), labelled: true, cell: (device) => device.browser },
        {
          area: "last-login",
          label: t("deviceLimit.lastLogin"),
          labelled: true,
          cell: (device) => (
            <time dateTime={device.lastLoginAt}>{dateFormat.format(new Date(device.lastLoginAt))}</time>
          ),
        },
        { area: "action", label: t("deviceLimit.action"), cell: action },
      ]}
    />
  );
}

/**
 * A button that acts on one signed-in session: a plain form post of the session's id and the intent, so it works
 * without JavaScript. Deactivate on the device pages, "This wasn't me" on the security page.
 */
export function SessionActionForm({
  sessionId,
  intent,
  label,
  ariaLabel,
  variant = "secondary",
}: {
  sessionId: string;
  intent: string;
  label: string;
  ariaLabel: string;
  variant?: ButtonVariant;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="device" value={sessionId} />
      <Button name="intent" value={intent} variant={variant} aria-label={ariaLabel}>
        {label}
      </Button>
    </Form>
  );
}

/** The Deactivate button of one row. */
export function DeactivateDeviceForm({ device }: { device: DeviceRow }) {
  const { t } = useTranslation("auth");
  return (
    <SessionActionForm
      sessionId={device.id}
      intent="deactivate"
      label={t("deviceLimit.deactivate")}
      ariaLabel={t("deviceLimit.deactivateLabel", { device: device.deviceName, browser: device.browser })}
    />
  );
}
