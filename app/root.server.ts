import type { TFunction } from "i18next";
import { createCookie, type RouterContextProvider } from "react-router";
import type { ToastMessage } from "remix-toast";
import { getConfig } from "~/config.server";
import {
  type RecognizedService,
  SERVICE_THEMES,
  recognizeService,
  themeForService,
} from "~/domain/service-recognition.server";
import { loadTranslations } from "~/i18n/translations.server";
import { displayName } from "~/domain/display-name.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
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

/**
 * The toast is translated here, in the language of the page it lands on, so the browser needs no toast
 * catalogue. Its message is a key of the "toasts" namespace; `values` fill its placeholders.
 */
function translateToast(toast: ToastMessage, t: TFunction<"toasts">) {
  const values = typeof toast.values === "object" && toast.values !== null ? toast.values : {};
  return {
    type: toast.type === "success" || toast.type === "error" ? toast.type : ("info" as const),
    text: (t as unknown as (key: string, values: object) => string)(toast.message, values),
  };
}

/**
 * Reads (and so consumes) the toast a redirect left, except on prefetches: the browser fetches the data of
 * visible links ahead of time, and a prefetch must neither eat a toast meant for the page being shown nor, by
 * answering late, overwrite the cookie a form post has just set. Without a toast nothing is written either.
 */
async function readToast(request: Request) {
  const purpose = request.headers.get("Sec-Purpose") ?? request.headers.get("Purpose") ?? "";
  if (/prefetch/i.test(purpose)) return { toast: undefined, headers: new Headers() };
  const { toast, headers } = await getToastUtils().getToast(request);
  return { toast, headers: toast ? headers : new Headers() };
}

/** Namespaces every page's frame (header, menu, footer, error pages) needs. */
const FRAME_NAMESPACES = ["common", "errors"] as const;

export async function loadRootData(request: Request, context: Readonly<RouterContextProvider>) {
  const config = getConfig();
  const { toast, headers } = await readToast(request);
  const locale = getLocale(context);
  const member = getMember(context);
  const { service, setCookie } = await resolveService(request, config.origin);
  if (setCookie) headers.append("Set-Cookie", setCookie);
  return {
    headers,
    data: {
      locale,
      translations: loadTranslations(context, [...FRAME_NAMESPACES]),
      theme: themeForService(service),
      toast: toast ? translateToast(toast, getInstance(context).getFixedT(locale, "toasts")) : null,
      member: member ? { displayName: displayName(member, locale), email: member.email } : null,
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
