import { data, redirect } from "react-router";
import {
  type ExportKind,
  exportNeedsRecentSignIn,
  isExportKind,
  parseExportQuery,
} from "~/domain/staff/export-params.server";
import { exportEmailAddresses, exportMembers, exportWithdrawalReasons } from "~/domain/staff/member-export.server";
import { DomainError } from "~/domain/domain-error.server";
import type { WithdrawalReason } from "~/domain/forms/form-choices";
import { localeFromPathname } from "~/i18n/locales";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { requireRecentStaffConfirmation } from "~/middleware/staff-session.server";
import { csvDownloadResponse } from "~/api/csv-response.server";
import { exportParamsOfPage } from "~/routing/download-page-params.server";
import { newsletterUnsubscribeLinkBaseFor } from "~/routing/newsletter-unsubscribe-link";
import { pathFor } from "~/routing/route-table";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin-download";

/** The file names in the URL (the page's form actions) and the download each one is. */
const KIND_BY_FILE: Record<string, ExportKind> = {
  "users.csv": "users",
  "withdrawal-reasons.csv": "withdrawal-reasons",
  "email-addresses.csv": "email-addresses",
};

/**
 * Where a download may start: the downloads page's own form, or a client that is no browser. Browsers send
 * Sec-Fetch-Site with every request to an https origin (and to localhost); a link on another site ("cross-site"),
 * a sibling host ("same-site") or outside the browser ("none": a mail, a bookmark) must not run an export with the
 * staff member's cookie and put it in the audit log under their name. A request without the header comes from a
 * program, which carries a cookie only when someone gave it one.
 */
function isOwnPageRequest(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  return site === null || site === "same-origin";
}

/**
 * The downloads page's GET forms land here (a resource route: the browser saves the answer, JavaScript or not).
 * Bad parameters and a full house go back to the page, which shows the form's field errors or the "busy" message
 * with what was typed. More members than one page of the member list, and the newsletter's addresses, need the
 * password and code within the last 10 minutes (exportNeedsRecentSignIn): the staff sign-in confirms them and brings
 * the staff member back to the filled-in form.
 */
export async function loader({ request, url, context, params }: Route.LoaderArgs) {
  const admin = requireAdmin(context, url);
  const kind = KIND_BY_FILE[params.file];
  if (!isExportKind(kind)) throw data(null, { status: 404 });
  const i18n = getInstance(context);
  /** The downloads page showing this form with what was typed (`extra`: why it came back, if refused). */
  const formPage = (extra: Record<string, string> = {}) => {
    const query = new URLSearchParams(url.searchParams);
    for (const [name, value] of Object.entries({ form: kind, ...extra })) query.set(name, value);
    return `${pathFor("admin-downloads", localeFromPathname(url.pathname))}?${query}`;
  };
  const backToForm = (extra: Record<string, string>) => redirect(formPage(extra));
  // The page itself, never the filled-in form: the staff member decides there whether to download.
  if (!isOwnPageRequest(request)) return redirect(pathFor("admin-downloads", localeFromPathname(url.pathname)));
  if (await checkAttemptLimit(context, { action: "staffAction", subject: admin.sub }))
    return backToForm({ limited: "1" });
  const parsed = parseExportQuery(kind, exportParamsOfPage(url.searchParams));
  if (!parsed.success) return backToForm({});
  if (exportNeedsRecentSignIn(kind, parsed.data)) {
    await requireRecentStaffConfirmation(context, url, admin, { returnTo: formPage() });
  }
  const services = servicesOf(context);
  const exportRequest = {
    actor: { sub: admin.sub, email: admin.email },
    requestId: context.get(requestInfoContext).requestId,
    query: parsed.data as never,
  };
  try {
    const download =
      kind === "users"
        ? await exportMembers(services, exportRequest)
        : kind === "withdrawal-reasons"
          ? await exportWithdrawalReasons(services, exportRequest, (reason) =>
              i18n.t(`withdrawal:reasons.${reason as WithdrawalReason}`),
            )
          : await exportEmailAddresses(services, exportRequest, {
              linkBase: newsletterUnsubscribeLinkBaseFor(services.config.origin),
              sessionSecrets: services.config.sessionSecrets,
            });
    return csvDownloadResponse(download, services.clock.now());
  } catch (error) {
    if (error instanceof DomainError && error.code === "throttled") return backToForm({ busy: "1" });
    throw error;
  }
}
