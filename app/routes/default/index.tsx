import { translate, useTranslation } from "~/i18n/use-translation";
import { AppLink } from "~/components/app-link";
import { useRootData } from "~/components/use-root-data";
import { type Locale, pathnameForLocale } from "~/i18n/locales";
import { loadTranslations } from "~/i18n/translations.server";
import type { Route } from "./+types/index";

// Sibling services in the order the home page introduces them.
const LINKED_SERVICES = ["data", "compe", "online", "shop"] as const;
const PLAN_ROWS = ["price", "search", "summaries", "pages"] as const;
/** Everything but the meta texts, which travel as the title and description. */
const HOME_TEXTS = [{ namespace: "home", keys: ["hero", "actions", "about", "services", "plans", "cta"] }] as const;
const META_TEXTS = [{ namespace: "home", keys: ["meta"] }] as const;

export async function loader({ context }: Route.LoaderArgs) {
  // meta() cannot use a hook, so the title and description are translated here: looked up like the page's texts
  // (i18next's t would walk the resources again on every view).
  const metaTexts = loadTranslations(context, META_TEXTS);
  return {
    title: translate(metaTexts, "home", "meta.title"),
    description: translate(metaTexts, "home", "meta.description"),
    translations: loadTranslations(context, HOME_TEXTS),
  };
}

export default function HomePage() {
  const { t } = useTranslation("home");
  const { locale, member, links } = useRootData();
  return (
    <div className="content home">
      <section className="home-hero" aria-labelledby="home-title">
        <h1 id="home-title" className="home-hero__title">
          {t("hero.title")}
        </h1>
        <p className="home-hero__lead">{t("hero.lead")}</p>
        <AccountActions locale={locale} signedIn={member !== null} />
      </section>

      <section className="home-section home-about" aria-labelledby="home-about-title">
        <h2 id="home-about-title">{t("about.title")}</h2>
        <ul className="feature-list">
          {(["single", "manage", "newsletter"] as const).map((point) => (
            <li key={point} className="feature-list__item">
              <h3 className="feature-list__title">{t(`about.${point}.title`)}</h3>
              <p>{t(`about.${point}.body`)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section className="home-section home-services" aria-labelledby="home-services-title">
        <h2 id="home-services-title">{t("services.title")}</h2>
        <p>{t("services.lead")}</p>
        <ul className="service-list">
          {LINKED_SERVICES.map((service) => {
            const origin = links.services[service];
            const name = t(`services.${service}.name`);
            return (
              <li key={service} className={`service-list__item service-list__item--${service}`}>
                <h3 className="service-list__name">
                  {/* A sibling without a configured origin (e.g. in development) is named but not linked. */}
                  {origin ? <a href={origin}>{name}</a> : name}
                </h3>
                <p>{t(`services.${service}.description`)}</p>
              </li>
            );
          })}
        </ul>
      </section>

      <section className="home-section home-plans" aria-labelledby="home-plans-title">
        <h2 id="home-plans-title">{t("plans.title")}</h2>
        <p>{t("plans.lead")}</p>
        <div className="plan-table__scroll">
          <table className="plan-table">
            <caption>{t("plans.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("plans.featureHeader")}</th>
                <th scope="col" className="plan-table__plan plan-table__plan--free">
                  {t("plans.free")}
                </th>
                <th scope="col" className="plan-table__plan plan-table__plan--paid">
                  {t("plans.paid")}
                </th>
              </tr>
            </thead>
            <tbody>
              {PLAN_ROWS.map((row) => (
                <tr key={row}>
                  <th scope="row">{t(`plans.rows.${row}.feature`)}</th>
                  <td>{t(`plans.rows.${row}.free`)}</td>
                  <td>{t(`plans.rows.${row}.paid`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="home-plans__note">{t("plans.note")}</p>
        {links.services.data ? (
          <p>
            <a href={links.services.data}>{t("plans.dataLink")}</a>
          </p>
        ) : null}
      </section>

      {member === null ? (
        <section className="home-section home-cta" aria-labelledby="home-cta-title">
          <h2 id="home-cta-title">{t("cta.title")}</h2>
          <p>{t("cta.body")}</p>
          <AccountActions locale={locale} signedIn={false} signInPrompt={t("cta.signInPrompt")} />
        </section>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) =>
  loaderData ? [{ title: loaderData.title }, { name: "description", content: loaderData.description }] : [];

/** Sign up and log in for visitors; a signed-in member goes to their membership info instead. */
function AccountActions({
  locale,
  signedIn,
  signInPrompt,
}: {
  locale: Locale;
  signedIn: boolean;
  signInPrompt?: string;
}) {
  const { t } = useTranslation("home");
  if (signedIn) {
    return (
      <p className="actions">
        <AppLink to={pathnameForLocale("/my/profile/", locale)} className="button button--primary">
          {t("actions.myProfile")}
        </AppLink>
      </p>
    );
  }
  // The auth routes are not in the route table yet, so their paths are built here rather than with pathFor.
  return (
    <ul className="actions" aria-label={t("actions.label")}>
      <li>
        <AppLink to={pathnameForLocale("/auth/sign-up/", locale)} className="button button--primary">
          {t("actions.signUp")}
        </AppLink>
      </li>
      <li>
        {signInPrompt ? <span className="actions__prompt">{signInPrompt}</span> : null}
        <AppLink to={pathnameForLocale("/auth/sign-in/", locale)} className="button button--secondary">
          {t("actions.signIn")}
        </AppLink>
      </li>
    </ul>
  );
}
