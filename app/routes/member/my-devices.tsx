import { AppLink } from "~/components/app-link";
import { DeactivateDeviceForm, DeviceTable } from "~/components/device-table";
import { nameDevice, toDeviceRows } from "~/components/device-rows.server";
import { findSignInAddresses, listActiveDevices } from "~/domain/sessions/device-list.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/my-devices";

/**
 * The "auth" texts DeviceTable and its Deactivate button use: this page shows nothing else of the device-limit
 * screen's. Here rather than in the component, so the list stays out of the browser's JavaScript.
 */
const DEVICE_TABLE_KEYS = [
  "deviceLimit.device",
  "deviceLimit.deviceBrowser",
  "deviceLimit.activity",
  "deviceLimit.lastLogin",
  "deviceLimit.lastActive",
  "deviceLimit.signInIp",
  "deviceLimit.action",
  "deviceLimit.deactivate",
  "deviceLimit.deactivateLabel",
];

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  const { config, db, clock } = servicesOf(context);
  const devices = await listActiveDevices(db, member.sub, { sessionId: member.sessionId });
  const addresses = await findSignInAddresses(
    db,
    member.sub,
    devices.map((device) => device.id),
  );
  // This browser is in use now: it is asking.
  const now = clock.now();
  return {
    title: getInstance(context).t("account:devices.title"),
    translations: loadTranslations(context, [
      { namespace: "account", keys: ["devices"] },
      // The device table's texts, not the rest of the device-limit screen's.
      { namespace: "auth", keys: DEVICE_TABLE_KEYS },
    ]),
    deviceLimit: config.deviceLimit,
    devices: toDeviceRows(
      devices.map((device) => (device.current ? { ...device, lastActiveAt: now } : device)),
      addresses,
    ),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const here = pathFor("my-devices", getLocale(context));
  const formData = await request.formData();
  const toasts = getToastUtils(context);
  const t = getInstance(context).getFixedT(getLocale(context), "auth");
  // One of the member's other browsers: it is signed out on its next request. This browser's own is not
  // deactivated here (that is what signing out is for).
  const [ended] =
    formData.get("intent") === "deactivate"
      ? await endSessions(
          servicesOf(context),
          {
            sub: member.sub,
            device: { sessionId: String(formData.get("device") ?? "") },
            exceptSessionId: member.sessionId,
          },
          { record: { kind: "device-deactivated", clientIp: clientIpOf(context) } },
        )
      : [];
  return ended
    ? toasts.redirectWithSuccess(here, { message: "deviceDeactivated", values: { device: nameDevice(t, ended) } })
    : toasts.redirectWithError(here, "deviceDeactivateFailed");
}

export default function DevicesPage({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("account");
  const { deviceLimit, devices } = loaderData;
  return (
    <section className="content device-limit">
      <h1>{t("devices.title")}</h1>
      <p>{t("devices.lead", { deviceLimit })}</p>
      <p data-testid="device-count">{t("devices.count", { count: devices.length })}</p>
      <DeviceTable
        devices={devices}
        currentLabel={t("devices.thisBrowser")}
        action={(device) =>
          // This browser is not deactivated here: signing out is how it leaves.
          device.current ? (
            <AppLink to={pathFor("auth-sign-out", i18n.language)}>{t("devices.signOut")}</AppLink>
          ) : (
            <DeactivateDeviceForm device={device} />
          )
        }
      />
      <p>{t("devices.note")}</p>
      <p>
        <AppLink to={pathFor("my-security", i18n.language)}>{t("devices.securityLink")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
