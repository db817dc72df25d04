import { useTranslation } from "~/i18n/use-translation";
import { isRouteErrorResponse, useLocation, useRouteError, useRouteLoaderData } from "react-router";
import { localeFromPathname } from "~/i18n/locales";
import type { RootData } from "~/root.server";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "./app-link";
import { PageFrame } from "./page-frame";

type ErrorKind = "notFound" | "forbidden" | "serverError" | "serviceUnavailable";

/** The site has four error pages; every other status (405, …) reads as the generic 500 page. */
function getErrorKind(status: number): ErrorKind {
  if (status === 404) return "notFound";
  // Only the staff pages answer 403 (a member outside the admin group).
  if (status === 403) return "forbidden";
  if (status === 503) return "serviceUnavailable";
  return "serverError";
}

/**
 * The 404 / 403 / 500 / 503 page drawn by the layouts' ErrorBoundary. It never shows error details: the status is all
 * a visitor needs, and the server log has the rest.
 */
export function ErrorPage({ status }: { status: number }) {
  const { t } = useTranslation("errors");
  // Optional rather than useRootData(): a failing middleware skips every loader, root's included, and this page
  // must still render then instead of throwing on to the bare last-resort page.
  const rootData = useRouteLoaderData<RootData>("root");
  const location = useLocation();
  const locale = rootData?.locale ?? localeFromPathname(location.pathname);
  const officialSocial = rootData?.links.officialSocial;
  const kind = getErrorKind(status);
  const title = t(`${kind}.title`);
  return (
    <section className="content error-page" aria-labelledby="error-page-title">
      {/* React hoists this into <head>; no route's meta gives a title while its page is an error. */}
      <title>{t("documentTitle", { title })}</title>
      <p className="error-page__status">{t("statusLabel", { status })}</p>
      <h1 id="error-page-title" className="error-page__title">
        {title}
      </h1>
      <p className="error-page__message">{t(`${kind}.body`)}</p>
      <ul className="error-page__actions">
        {kind === "serviceUnavailable" && officialSocial ? (
          <li>
            {/* A new tab keeps this page open, so the member can simply reload it once the service is back. */}
            <a href={officialSocial} target="_blank" rel="noopener" className="error-page__social">
              {t("serviceUnavailable.socialLink")}
              <span className="error-page__new-tab">{t("serviceUnavailable.newTab")}</span>
            </a>
          </li>
        ) : null}
        <li>
          <AppLink to={pathFor("index", locale)} className="error-page__home">
            {t("backHome")}
          </AppLink>
        </li>
      </ul>
    </section>
  );
}

/**
 * The layouts' error boundary: 404, 403, 500 and 503 inside the site frame, so the member keeps the header, menu and
 * language switch.
 */
export function FramedErrorPage() {
  const error = useRouteError();
  return (
    <PageFrame>
      <ErrorPage status={isRouteErrorResponse(error) ? error.status : 500} />
    </PageFrame>
  );
}
