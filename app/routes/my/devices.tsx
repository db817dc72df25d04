import { AppLink } from "~/components/app-link";
import { DeactivateDeviceForm, DeviceTable } from "~/components/device-table";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { servicesOf } from "~/services.server";
import type { Route } from "./+types/devices";
import { deactivateMemberDevice, devicesOf } from "./devices.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const member = requireMember(context, request);
  const services = servicesOf(context);
  const devices = await devicesOf(services, member);
  return {
    title: getInstance(context).t("account:devices.title"),
    translations: loadTranslations(context, ["account", "auth", "toasts"]),
    deviceLimit: services.config.deviceLimit,
    devices: devices.map((device) => ({ ...device, lastLoginAt: device.lastLoginAt.toISOString() })),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const member = requireMember(context, request);
  const here = pathFor("my-devices", getLocale(context));
  const formData = await request.formData();
  const toasts = getToastUtils();
  const ended =
    formData.get("intent") === "deactivate"
      ? await deactivateMemberDevice(servicesOf(context), member, String(formData.get("device") ?? ""))
      : null;
  return ended
    ? toasts.redirectWithSuccess(here, { message: "deviceDeactivated", values: { device: ended.deviceName } })
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
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
