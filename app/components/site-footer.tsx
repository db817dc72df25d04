import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "./app-link";
import { LanguageSwitch } from "./language-switch";
import { getSiblingLinks } from "./site-navigation";
import { useRootData } from "./use-root-data";

/** The copyright years: the publisher's founding year to the last redesign. */
const COPYRIGHT_YEARS = "1925-2023";

export function SiteFooter() {
  const { t } = useTranslation();
  const { locale, links, theme, copyrightHolder } = useRootData();
  const siblings = getSiblingLinks(links);
  return (
    <footer className="site-footer" data-theme={theme}>
      <div className="site-footer__inner">
        <nav className="site-footer__nav" aria-label={t("footer.siteLinks")}>
          <ul className="site-footer__list">
            <li>
              <AppLink to={pathFor("index", locale)}>{t("nav.home")}</AppLink>
            </li>
            <li>
              <AppLink to={pathFor("docs-terms-of-use", locale)}>{t("nav.termsOfUse")}</AppLink>
            </li>
            <li>
              <AppLink to={pathFor("docs-privacy-policy", locale)}>{t("nav.privacyPolicy")}</AppLink>
            </li>
          </ul>
        </nav>
        <nav className="site-footer__nav" aria-label={t("footer.serviceLinks")}>
          <ul className="site-footer__list site-footer__list--external">
            {siblings.map(({ service, origin }) => (
              <li key={service}>
                <a href={origin}>{t(`services.${service}`)}</a>
              </li>
            ))}
            <li>
              <a href={links.corporate}>{t("footer.corporate")}</a>
            </li>
          </ul>
        </nav>
        <LanguageSwitch className="site-footer__language" />
        <p className="site-footer__copyright">
          <small>
            {t("footer.copyright", { years: COPYRIGHT_YEARS, publisher: copyrightHolder ?? t("publisher") })}
          </small>
        </p>
      </div>
    </footer>
  );
}
