import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import type { ToastMessage } from "remix-toast";
import { themeForService } from "~/domain/sessions/service-recognition.server";
import { resolveService } from "~/middleware/service-cookie.server";
import { type TranslationRequest, loadTranslations } from "~/i18n/translations.server";
import { displayName } from "~/domain/account/display-name.server";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { peekMember } from "~/middleware/member-session.server";
import { servicesOf } from "~/router-context.server";
import { getToastUtils, mayCarryToast } from "~/toast.server";

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
 * answering late, overwrite the cookie a form post has just set. Without a toast nothing is written either, and
 * without a toast cookie nothing is read.
 */
async function readToast(request: Request, context: Readonly<RouterContextProvider>) {
  const purpose = request.headers.get("Sec-Purpose") ?? request.headers.get("Purpose") ?? "";
  if (/prefetch/i.test(purpose) || !mayCarryToast(context, request))
    return { toast: undefined, headers: new Headers() };
  const { toast, headers } = await getToastUtils(context).getToast(request);
  return { toast, headers: toast ? headers : new Headers() };
}

/**
 * The texts every page's frame needs: the header, menu and footer, and the error page (ErrorPage), which the browser
 * draws when a navigation fails. The staff pages' own error texts reach them translated in their actions' replies.
 */
const FRAME_TEXTS: TranslationRequest[] = [
  "common",
  {
    namespace: "errors",
    keys: ["documentTitle", "statusLabel", "backHome", "notFound", "forbidden", "serverError", "serviceUnavailable"],
  },
];

export async function loadRootData(request: Request, context: Readonly<RouterContextProvider>) {
  const { config } = servicesOf(context);
  const { toast, headers } = await readToast(request, context);
  const locale = getLocale(context);
  // Not getMember: the frame must render on the 503 page too, where the member is unknown.
  const { member } = peekMember(context);
  const { service, setCookie } = await resolveService(request, config);
  if (setCookie) headers.append("Set-Cookie", setCookie);
  return {
    headers,
    data: {
      locale,
      translations: loadTranslations(context, FRAME_TEXTS),
      theme: themeForService(service),
      toast: toast ? translateToast(toast, getInstance(context).getFixedT(locale, "toasts")) : null,
      member: member ? { displayName: displayName(member, locale), email: member.email } : null,
      devToolsEnabled: config.devToolsEnabled,
      copyrightHolder: config.copyrightHolder,
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
