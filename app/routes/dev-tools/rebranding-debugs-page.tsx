import { useTranslation } from "~/i18n/use-translation";
import { data } from "react-router";
import { AppLink } from "~/components/app-link";
import { isDebugPage } from "~/components/design-debug/debug-pages";
import { DebugSection } from "~/components/design-debug/debug-sections";
import { useRootData } from "~/components/use-root-data";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/rebranding-debugs-page";

export async function loader({ url, params, context }: Route.LoaderArgs) {
  if (!isDebugPage(params.page)) throw data(null, { status: 404 });
  const t = getInstance(context).getFixedT(null, "devtools");
  // Only i-2-2 reads it: which server error page to draw.
  const errorStatus = url.searchParams.get("status") === "503" ? 503 : 500;
  return {
    page: params.page,
    errorStatus,
    title: t("documentTitle", { title: t(`debugPages.${params.page}.title`) }),
  };
}

/**
 * The "toast" subpage's buttons: a real redirect with a real toast cookie, exactly as the app's forms do it; and a
 * post that fails on the server, for the internal-error toast a failed post shows with JavaScript (the 500 page
 * without).
 */
export async function action({ params, request, context }: Route.ActionArgs) {
  if (params.page !== "toast") throw data(null, { status: 405 });
  const kind = (await request.formData()).get("kind");
  const back = pathFor("rebranding-debugs-page", getLocale(context), { page: "toast" });
  const toasts = getToastUtils(context);
  switch (kind) {
    case "success":
      return toasts.redirectWithSuccess(back, "changesSaved");
    case "error":
      return toasts.redirectWithError(back, "internalError");
    case "info":
      return toasts.redirectWithInfo(back, "deviceLimitExceeded");
    case "failure":
      throw new Error("the design debug page's deliberate server failure");
    default:
      throw data(null, { status: 400 });
  }
}

export default function RebrandingDebugsSubpage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("devtools");
  const { locale } = useRootData();
  const { page } = loaderData;
  return (
    <div className="content design-debug">
      <p className="design-debug__back">
        <AppLink to={pathFor("rebranding-debugs", locale)}>{t("debug.back")}</AppLink>
      </p>
      <h1>
        <span className="debug-index__code">{page}</span> {t(`debugPages.${page}.title`)}
      </h1>
      <p className="design-debug__subject">{t(`debugPages.${page}.subject`)}</p>
      <DebugSection page={page} errorStatus={loaderData.errorStatus} />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "robots", content: "noindex" },
];
