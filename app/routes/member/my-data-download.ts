import { redirect } from "react-router";
import { downloadDataCopy } from "~/domain/account/data-copy.server";
import { contentDisposition } from "~/domain/staff/spreadsheet-csv.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { requireRecentPassword } from "~/middleware/require-recent-password.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/my-data-download";

/** Someone who opens the address itself gets the page the button is on. */
export function loader({ context }: Route.LoaderArgs) {
  return redirect(pathFor("my-data", getLocale(context)));
}

/**
 * The data page's download button posts here (a plain form, so the browser saves the answer, JavaScript or not): the
 * signed-in member's own copy, never anyone else's, since the only "whose" is the session. A session without a
 * recent password goes through the password step and back to the data page.
 */
export async function action({ url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  await requireRecentPassword(context, url, member, { returnTo: pathFor("my-data", locale) });
  const refusal = await checkAttemptLimit(context, { action: "dataCopy", subject: member.sub });
  if (refusal) return getToastUtils(context).redirectWithError(pathFor("my-data", locale), refusal.messageKey);
  const services = servicesOf(context);
  const { json, generatedAt } = await downloadDataCopy(services, {
    sub: member.sub,
    email: member.email,
    sessionId: member.sessionId,
    clientIp: clientIpOf(context),
  });
  return new Response(json, {
    status: 200,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": contentDisposition("my-data", generatedAt, "json"),
      "Cache-Control": "no-store",
    },
  });
}
