import type { i18n } from "i18next";
import { createCookie } from "react-router";
import { getConfig } from "~/config.server";
import {
  type RecognizedService,
  SERVICE_THEMES,
  recognizeService,
  themeForService,
} from "~/domain/service-recognition.server";
import type { Locale } from "~/i18n/locales";
import { CLIENT_NAMESPACES } from "~/i18n/client-i18n";
import { getToastUtils } from "~/toast.server";

/**
 * Remembers which service sent the member here for the rest of the browser session, so the header keeps that
 * service's look while the member moves between our own pages (their referrer is then our own origin).
 */
const serviceCookie = createCookie("service", { path: "/", sameSite: "lax", httpOnly: true });

async function resolveService(request: Request, ownOrigin: string) {
  const config = getConfig();
  const fromReferrer = recognizeService(request.headers.get("Referer"), ownOrigin, config.services);
  const remembered: unknown = await serviceCookie.parse(request.headers.get("Cookie"));
  const rememberedService = (SERVICE_THEMES as readonly unknown[]).includes(remembered)
    ? (remembered as RecognizedService)
    : null;
  // Our own pages ("id") keep whatever service brought the member; a sibling's referrer replaces it.
  const service = fromReferrer === null || fromReferrer === "id" ? rememberedService : fromReferrer;
  const setCookie =
    service !== rememberedService && service !== null && service !== "local"
      ? await serviceCookie.serialize(service, { secure: config.secureCookies })
      : null;
  return { service, setCookie };
}

export async function loadRootData(request: Request, locale: Locale, i18nInstance: i18n) {
  const config = getConfig();
  const { toast, headers } = await getToastUtils().getToast(request);
  const { service, setCookie } = await resolveService(request, config.origin);
  if (setCookie) headers.append("Set-Cookie", setCookie);
  const resources = Object.fromEntries(
    CLIENT_NAMESPACES.map((namespace) => [namespace, i18nInstance.getResourceBundle(locale, namespace)]),
  ) as Record<(typeof CLIENT_NAMESPACES)[number], Record<string, unknown>>;
  return {
    headers,
    data: {
      locale,
      resources,
      theme: themeForService(service),
      toast: toast ?? null,
      // Member sign-in arrives with the sign-in issue; until then every visitor is signed out.
      member: null as { displayName: string; email: string } | null,
      devToolsEnabled: config.devToolsEnabled,
      links: {
        dataTerms: config.links.dataTerms,
        corporate: config.links.corporate,
        officialSocial: config.links.officialSocial,
        services: {
          data: config.services.data.origin ?? null,
          compe: config.services.compe.origin ?? null,
          online: config.services.online.origin ?? null,
          shop: config.services.shop.origin ?? null,
        },
      },
    },
  };
}

export type RootData = Awaited<ReturnType<typeof loadRootData>>["data"];
