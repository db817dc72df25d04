import { Form, redirect } from "react-router";
import { Button } from "~/components/button";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
import { clearSessionCookie, readSessionCookie } from "~/middleware/session-cookies.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/sign-out";
import { servicesOf } from "~/services.server";
import { signOutSession } from "./sign-in.server";

/**
 * A page with a button, not a link that signs out: GET never changes state (SECURITY.md item 8). Shown to a browser
 * with a session cookie even when its member cannot be confirmed right now (Cognito down, token not refreshable).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  if (!getMember(context) && !(await readSessionCookie(request))) throw redirect(pathFor("index", getLocale(context)));
  return {
    title: getInstance(context).t("auth:signOut.title"),
    translations: loadTranslations(context, ["auth"]),
  };
}

/**
 * Ends this browser's session row by the id in its signed cookie, not by the signed-in member of this request: when
 * the access token cannot be verified or refreshed at this moment the member is unknown, and the session must end
 * all the same.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const home = pathFor("index", getLocale(context));
  const sessionId = getMember(context)?.sessionId ?? (await readSessionCookie(request))?.sid;
  if (sessionId) await signOutSession(servicesOf(context), sessionId);
  const headers = new Headers({ "Set-Cookie": await clearSessionCookie() });
  return getToastUtils().redirectWithSuccess(home, "loggedOut", { headers });
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
