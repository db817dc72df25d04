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
  /** ISO 8601: when the browser was last seen in use; null when not since its sign-in. */
  lastActiveAt: string | null;
  /** Where it signed in from, when the security record knows. */
  ipAddress: string | null;
  current: boolean;
}

/**
 * Signed-in browsers, each told apart by what is known of it: the browser and device in words (the way the
 * deactivation toast names it), marked when it is the asking browser (`currentLabel`); its last sign-in, when it was
 * last active and the IP it signed in from, the last two only where known (so no cell is ever empty); and an action.
 * Texts: "auth" namespace.
 */
export function DeviceTable({
  devices,
  currentLabel,
  action,
}: {
  devices: DeviceRow[];
  currentLabel: string;
  action: (device: DeviceRow) => ReactNode;
}) {
  const { t, i18n } = useTranslation("auth");
  // A fixed zone keeps the server's and the browser's text identical (no hydration mismatch).
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "Asia/Tokyo",
  });
  const time = (iso: string) => <time dateTime={iso}>{dateFormat.format(new Date(iso))}</time>;
  return (
    <CardTable
      className="device-table"
      rows={devices}
      columns={[
        {
          area: "device",
          label: t("deviceLimit.device"),
          cell: (device) => (
            <>
              {t("deviceLimit.deviceBrowser", { device: device.deviceName, browser: device.browser })}
              {device.current ? <span className="badge">{currentLabel}</span> : null}
            </>
          ),
        },
        {
          area: "activity",
          label: t("deviceLimit.activity"),
          cell: (device) => (
            <dl className="device-facts">
              <div>
                <dt>{t("deviceLimit.lastLogin")}</dt>
                <dd>{time(device.lastLoginAt)}</dd>
              </div>
              {device.lastActiveAt ? (
                <div>
                  <dt>{t("deviceLimit.lastActive")}</dt>
                  <dd>{time(device.lastActiveAt)}</dd>
                </div>
              ) : null}
              {device.ipAddress ? (
                <div>
                  <dt>{t("deviceLimit.signInIp")}</dt>
                  <dd>{device.ipAddress}</dd>
                </div>
              ) : null}
            </dl>
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
      ariaLabel={t("deviceLimit.deactivateLabel", {
        device: t("deviceLimit.deviceBrowser", { device: device.deviceName, browser: device.browser }),
      })}
    />
  );
}
