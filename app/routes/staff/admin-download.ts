import { data, redirect } from "react-router";
import { type ExportKind, isExportKind, parseExportQuery } from "~/domain/staff/export-params.server";
import { exportEmailAddresses, exportMembers, exportWithdrawalReasons } from "~/domain/staff/member-export.server";
import { DomainError } from "~/domain/domain-error.server";
import type { WithdrawalReason } from "~/domain/forms/form-choices";
import { localeFromPathname } from "~/i18n/locales";
import { getInstance } from "~/middleware/i18n.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { csvDownloadResponse, exportParamsOfPage } from "~/routing/csv-download.server";
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
 * The downloads page's GET forms land here (a resource route: the browser saves the answer, JavaScript or not).
 * Bad parameters and a full house go back to the page, which shows the form's field errors or the "busy" message
 * with what was typed.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const admin = requireAdmin(context, request);
  const kind = KIND_BY_FILE[params.file];
  if (!isExportKind(kind)) throw data(null, { status: 404 });
  const i18n = getInstance(context);
  const url = new URL(request.url);
  const backToForm = (extra: Record<string, string>) => {
    const query = new URLSearchParams(url.searchParams);
    for (const [name, value] of Object.entries({ form: kind, ...extra })) query.set(name, value);
    return redirect(`${pathFor("admin-downloads", localeFromPathname(url.pathname))}?${query}`);
  };
  const parsed = parseExportQuery(kind, exportParamsOfPage(url.searchParams));
  if (!parsed.success) return backToForm({});
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
