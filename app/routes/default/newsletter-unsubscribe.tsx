import { Form, data, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import {
  memberOfUnsubscribeToken,
  receivesNewsletter,
  unsubscribeFromNewsletter,
} from "~/domain/newsletter/newsletter.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/newsletter-unsubscribe";

/** "invalid": no token, a malformed one, or a signature no configured secret made. */
type PageState = "confirm" | "unsubscribed" | "invalid";

/** The page's texts: the same list each time, so the picked subset is made once (translations.server.ts). */
const PAGE_TEXT_KEYS = ["newsletter.unsubscribe"];

const STATUS_OF: Record<PageState, number> = { confirm: 200, unsubscribed: 200, invalid: 400 };

function pageData(context: Route.LoaderArgs["context"], state: PageState) {
  const t = getInstance(context).getFixedT(getLocale(context), "profile");
  return data(
    {
      title: t(
        state === "confirm"
          ? "newsletter.unsubscribe.title"
          : state === "unsubscribed"
            ? "newsletter.unsubscribe.doneTitle"
            : "newsletter.unsubscribe.invalidTitle",
      ),
      state,
      translations: loadTranslations(context, [{ namespace: "profile", keys: PAGE_TEXT_KEYS }]),
    },
    { status: STATUS_OF[state] },
  );
}

const memberOf = (context: Route.LoaderArgs["context"], token: string | undefined) =>
  token === undefined ? null : memberOfUnsubscribeToken(token, servicesOf(context).config.sessionSecrets);

/**
 * Opening the link only shows the page with its button: mail scanners that follow links must not unsubscribe anyone.
 * The page names nobody, so a link passed on tells nothing about its member. A member who receives no newsletter
 * already sees that it is done, so the page's title says so after the button too (the loader runs after the action,
 * and the title comes from the loader's data).
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const sub = memberOf(context, params.token);
  if (sub === null) return pageData(context, "invalid");
  return pageData(context, (await receivesNewsletter(servicesOf(context).db, sub)) ? "confirm" : "unsubscribed");
}

/**
 * The page's button and RFC 8058's one-click POST (`List-Unsubscribe=One-Click`, sent by mail providers without
 * cookies or Origin, which the origin check lets through as it does any post without them): the signed token is
 * the authority, so the body is not read and no session is needed. Unsubscribing again changes nothing.
 */
export async function action({ params, context }: Route.ActionArgs) {
  const sub = memberOf(context, params.token);
  if (sub === null) return pageData(context, "invalid");
  await unsubscribeFromNewsletter(servicesOf(context).db, sub);
  return pageData(context, "unsubscribed");
}

export default function NewsletterUnsubscribePage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("profile");
  const navigation = useNavigation();
  const state = actionData?.state ?? loaderData.state;
  if (state === "invalid") {
    return (
      <section className="content auth-page" data-testid="newsletter-unsubscribe-invalid">
        <h1>{t("newsletter.unsubscribe.invalidTitle")}</h1>
        <p role="alert">{t("newsletter.unsubscribe.invalid")}</p>
      </section>
    );
  }
  if (state === "unsubscribed") {
    return (
      <section className="content auth-page" data-testid="newsletter-unsubscribed">
        <h1>{t("newsletter.unsubscribe.doneTitle")}</h1>
        <p role="status">{t("newsletter.unsubscribe.done")}</p>
        <p>
          <AppLink to={pathFor("my-profile-edit", i18n.language)}>{t("newsletter.unsubscribe.toProfileEdit")}</AppLink>
        </p>
      </section>
    );
  }
  return (
    <section className="content auth-page">
      <h1>{t("newsletter.unsubscribe.title")}</h1>
      <p>{t("newsletter.unsubscribe.lead")}</p>
      <Form method="post" className="form">
        <Button pending={navigation.state === "submitting"} block>
          {t("newsletter.unsubscribe.submit")}
        </Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ data }) => [{ title: data?.title }];
