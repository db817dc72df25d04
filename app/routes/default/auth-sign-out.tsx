import { Form, redirect } from "react-router";
import { Button } from "~/components/button";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { sessionCookie, staffSessionCookie } from "~/cookies/app-cookies.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { endStaffSessions } from "~/domain/sessions/staff-sessions.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-sign-out";

/**
 * A page with a button, not a link that signs out: GET never changes state, so no link or prefetch can sign a member
 * out. Shown to a browser with a session cookie even when its member cannot be confirmed right now (Cognito down, token
 * not refreshable).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  if (!getMember(context) && !(await sessionCookie.read(servicesOf(context).config, request)))
    throw redirect(pathFor("index", getLocale(context)));
  return {
    title: getInstance(context).t("auth:signOut.title"),
    translations: loadTranslations(context, ["auth"]),
  };
}

/**
 * Ends this browser's session row (and its staff session, if any) by the id in its signed cookie, not by the signed-in member of this request: when
 * the access token cannot be verified or refreshed at this moment the member is unknown, and the session must end
 * all the same.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const home = pathFor("index", getLocale(context));
  const sessionId = getMember(context)?.sessionId ?? (await sessionCookie.read(services.config, request))?.sid;
  // This browser's session ends on the server and at Cognito.
  if (sessionId) {
    await endSessions(services, { sessionId }, { record: { kind: "sign-out", clientIp: clientIpOf(context) } });
  }
  // Signing out as a member ends this browser's staff session too (the staff area's sign-out ends both as well).
  const staffSessionId = (await staffSessionCookie.read(services.config, request))?.sid;
  if (staffSessionId) await endStaffSessions(services, { sessionId: staffSessionId });
  const headers = new Headers({ "Set-Cookie": await sessionCookie.clear(services.config) });
  headers.append("Set-Cookie", await staffSessionCookie.clear(services.config));
  return getToastUtils(context).redirectWithSuccess(home, "loggedOut", { headers });
}

export default function SignOutPage() {
  const { t } = useTranslation("auth");
  return (
    <section className="content auth-page">
      <h1>{t("signOut.title")}</h1>
      <p>{t("signOut.lead")}</p>
      <Form method="post">
        <Button>{t("signOut.submit")}</Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
