import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getMember } from "~/middleware/member-session.server";
import type { Route } from "./+types/profile";

export function loader({ context }: Route.LoaderArgs) {
  // The member layout's guard has run: there is a member.
  const member = getMember(context)!;
  return { subject: member.sub, email: member.email, translations: loadTranslations(context, ["auth"]) };
}

/** Membership information. The member-pages issue fills in the profile and its edit form. */
export default function ProfilePage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  return (
    <section className="content">
      <h1>{t("profile.title")}</h1>
      <dl className="definition-list">
        <dt>{t("profile.subject")}</dt>
        <dd data-testid="subject">{loaderData.subject}</dd>
        <dt>{t("profile.email")}</dt>
        <dd data-testid="email">{loaderData.email}</dd>
      </dl>
    </section>
  );
}
