import { Fragment } from "react";
import { AppLink } from "~/components/app-link";
import { SubjectId } from "~/components/subject-id";
import { useRootData } from "~/components/use-root-data";
import { PROFILE_FIELD_ORDER } from "~/domain/forms/form-choices";
import { describeProfileValues } from "~/components/profile-values.server";
import { isProfileFilled } from "~/domain/account/display-name.server";
import { receivesNewsletter } from "~/domain/newsletter/newsletter.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-profile";

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  // Read by the session check: this page shows it and changes nothing, so it reads only the newsletter choice.
  const { profile } = member;
  return {
    title: getInstance(context).getFixedT(locale, "profile")("title"),
    subject: member.sub,
    email: member.email,
    filled: profile !== null && isProfileFilled({ email: member.email, ...profile }),
    receivesNewsletter: await receivesNewsletter(servicesOf(context).db, member.sub),
    // What the page lists, in PROFILE_FIELD_ORDER, each as shown: codes named on the server (so the server's and the
    // browser's text cannot differ at hydration, and the page carries no list of names for the one it shows).
    details: describeProfileValues(profile, getInstance(context), locale),
    translations: loadTranslations(context, [
      "profile",
      // The field labels the page shows, not the sign-up form's texts.
      { namespace: "signUp", keys: PROFILE_FIELD_ORDER.map((field) => `account.${field}`) },
    ]),
  };
}

/** Membership information: what the member registered, the Subject ID to quote in inquiries, and a way to edit. */
export default function ProfilePage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("profile");
  const { t: ts } = useTranslation("signUp");
  const { locale } = useRootData();
  const editPath = pathFor("my-profile-edit", locale);
  const value = (text: string | number | null | undefined) =>
    text === null || text === undefined || text === "" ? t("notSet") : text;
  return (
    <section className="content">
      <h1>{t("title")}</h1>
      {loaderData.filled ? null : (
        <div className="notice" data-testid="profile-not-filled">
          <p>{t("notFilled")}</p>
          <p>
            <AppLink className="button button--primary" to={editPath}>
              {t("fill")}
            </AppLink>
          </p>
        </div>
      )}
      <dl className="definition-list">
        <dt>{t("subject")}</dt>
        <dd>
          <SubjectId value={loaderData.subject} />
          <small className="definition-list__hint">{t("subjectHint")}</small>
        </dd>
        <dt>{t("email")}</dt>
        <dd data-testid="email">{loaderData.email}</dd>
        {Object.entries(loaderData.details).map(([field, shown]) => (
          <Fragment key={field}>
            <dt>{ts(`account.${field as keyof typeof loaderData.details}`)}</dt>
            <dd data-testid={field}>{value(shown)}</dd>
          </Fragment>
        ))}
        <dt>{t("newsletter.title")}</dt>
        <dd data-testid="newsletter">
          {t(loaderData.receivesNewsletter ? "newsletter.receiving" : "newsletter.notReceiving")}
        </dd>
      </dl>
      {loaderData.filled ? (
        <p>
          <AppLink className="button button--primary" to={editPath}>
            {t("edit")}
          </AppLink>
        </p>
      ) : null}
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
