import { Form, data, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { confirmEmailChange, isEmailChangeTokenUsable } from "~/domain/account/email-change.server";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import type { Route } from "./+types/email-update";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

/** "incomplete": the link has no token (cut off, or typed by hand); "expired": used, too old or unknown. */
type PageState = "confirm" | "expired" | "incomplete";

/**
 * Opening the link only shows the page: mail scanners that follow links must not complete the change. A link that
 * cannot work answers 410 (its token is spent or unknown) or 404 (it has none), with a page that says so.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const state: PageState =
    params.token === undefined
      ? "incomplete"
      : (await isEmailChangeTokenUsable(servicesOf(context).db, params.token))
        ? "confirm"
        : "expired";
  return data(
    {
      title: getInstance(context).t(
        state === "confirm" ? "emailChange:confirm.title" : "emailChange:confirm.invalidTitle",
      ),
      state,
      translations: loadTranslations(context, [
        // Not the mail texts: the server writes the mails.
        { namespace: "emailChange", keys: ["confirm", "errors"] },
        { namespace: "toasts", keys: ["emailUnavailable", "expiredUrl"] },
      ]),
    },
    { status: { confirm: 200, expired: 410, incomplete: 404 }[state] },
  );
}

export async function action({ params, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  if (params.token === undefined) return data({ state: "incomplete" as PageState, error: null }, { status: 404 });
  let outcome;
  try {
    const { db, identity, mailer, config } = servicesOf(context);
    outcome = await confirmEmailChange(
      { db, identity, mailer, mailTexts: getInstance(context), confirmationLink: emailUpdateLinkFor(config.origin) },
      { token: params.token, locale, clientIp: clientIpOf(context) },
    );
  } catch (failure) {
    const error = domainErrorOf(failure);
    return data({ state: "confirm" as PageState, error: messageKeyOf(error) }, { status: httpStatusOf(error) });
  }
  if (outcome.kind === "expired") {
    return data({ state: "expired" as PageState, error: null }, { status: 410 });
  }
  if (outcome.kind === "emailUnavailable") {
    return data({ state: "expired" as PageState, error: "toasts:emailUnavailable" }, { status: 409 });
  }
  const member = getMember(context);
  const next = member ? pathFor("my-profile", locale) : pathFor("auth-sign-in", locale);
  return getToastUtils(context).redirectWithSuccess(next, "emailChanged");
}

export default function EmailUpdatePage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("emailChange");
  const navigation = useNavigation();
  const state = actionData?.state ?? loaderData.state;
  const error = actionData?.error ?? null;
  if (state !== "confirm") {
    const reason = error ?? (state === "incomplete" ? "emailChange:confirm.incompleteUrl" : "toasts:expiredUrl");
    return (
      <section className="content auth-page" data-testid="email-update-expired">
        <h1>{t("confirm.invalidTitle")}</h1>
        <p role="alert">{t(reason as "confirm.title")}</p>
        <p>{t("confirm.expiredLead")}</p>
        <p>
          <AppLink to={pathFor("my-email-edit", i18n.language)}>{t("confirm.toEdit")}</AppLink>
        </p>
      </section>
    );
  }
  return (
    <section className="content auth-page">
      <h1>{t("confirm.title")}</h1>
      {error ? <p role="alert">{t(error as "confirm.title")}</p> : null}
      <p>{t("confirm.lead")}</p>
      <Form method="post" className="form">
        <Button pending={navigation.state === "submitting"} block>
          {t("confirm.submit")}
        </Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
