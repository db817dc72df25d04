import { Form, data, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { endSignInByAlertLink, isSignInAlertTokenUsable } from "~/domain/account/sign-in-alert-links.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import type { Route } from "./+types/sign-in-alert";

/** "incomplete": the link has no token; "expired": used, past its 7 days or unknown; "ended": the button worked. */
type PageState = "confirm" | "expired" | "incomplete" | "ended";

const TITLE_KEYS = {
  confirm: "signInAlert:page.title",
  ended: "signInAlert:page.endedTitle",
  expired: "signInAlert:page.expiredTitle",
  incomplete: "signInAlert:page.expiredTitle",
} as const;

/** Whether the reader is signed in here: the password change is then their own page, else the reset. */
function pageData(context: Route.LoaderArgs["context"], state: PageState) {
  return {
    title: getInstance(context).t(TITLE_KEYS[state]),
    state,
    signedIn: getMember(context) !== null,
    translations: loadTranslations(context, [{ namespace: "signInAlert", keys: ["page"] }]),
  };
}

/**
 * Opening the link only shows the page with its one button: mail scanners that follow links must not end the
 * sign-in. A link that cannot work answers 410 (spent, expired or unknown) or 404 (no token), with a page that says so.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const { db, clock } = servicesOf(context);
  const state: PageState =
    params.token === undefined
      ? "incomplete"
      : (await isSignInAlertTokenUsable(db, params.token, clock.now()))
        ? "confirm"
        : "expired";
  return data(pageData(context, state), { status: { confirm: 200, expired: 410, incomplete: 404 }[state] });
}

/**
 * The button: ends exactly the session the alert told of, then offers the password change. The success names its
 * 200: React Router runs the loader again after the action, which finds the token spent (410), and the document's
 * status is the loader's unless the action gives one.
 */
export async function action({ params, context }: Route.ActionArgs) {
  if (params.token === undefined) return data(pageData(context, "incomplete"), { status: 404 });
  const outcome = await endSignInByAlertLink(servicesOf(context), params.token, clientIpOf(context));
  return outcome.kind === "ended"
    ? data(pageData(context, "ended"), { status: 200 })
    : data(pageData(context, "expired"), { status: 410 });
}

export default function SignInAlertPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("signInAlert");
  const navigation = useNavigation();
  const { state, signedIn } = actionData ?? loaderData;
  if (state === "ended") {
    return (
      <section className="content auth-page" data-testid="sign-in-alert-ended">
        <h1>{t("page.endedTitle")}</h1>
        <p role="status">{t("page.endedLead")}</p>
        <p>{t("page.passwordAdvice")}</p>
        <p>
          <AppLink
            className="button button--primary"
            to={pathFor(signedIn ? "my-password-edit" : "auth-forgot-password", i18n.language)}
          >
            {t(signedIn ? "page.toPasswordChange" : "page.toPasswordReset")}
          </AppLink>
        </p>
      </section>
    );
  }
  if (state !== "confirm") {
    return (
      <section className="content auth-page" data-testid="sign-in-alert-expired">
        <h1>{t("page.expiredTitle")}</h1>
        <p role="alert">{t("page.expiredLead")}</p>
        <p>
          <AppLink to={pathFor("my-devices", i18n.language)}>{t("page.toDevices")}</AppLink>
        </p>
      </section>
    );
  }
  return (
    <section className="content auth-page">
      <h1>{t("page.title")}</h1>
      <p>{t("page.lead")}</p>
      <Form method="post" className="form">
        <Button pending={navigation.state === "submitting"} block>
          {t("page.submit")}
        </Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
