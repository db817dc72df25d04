import { useTranslation } from "~/i18n/use-translation";
import type { RootData } from "~/root.server";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "./app-link";
import { LanguageSwitch } from "./language-switch";
import { getNavItems } from "./site-navigation";
import { SiteMenu } from "./site-menu";
import { UserMenu } from "./user-menu";
import { useRootData } from "./use-root-data";

type SiteHeaderProps = {
  /** Defaults to the root loader's theme and member; the design-debug pages pass others to compare variants. */
  theme?: RootData["theme"];
  member?: RootData["member"];
};

/** The headers that swap their sign-up and log-in links for the compact login icon up to 640px (site-header.css). */
const COMPACT_LOGIN_THEMES: ReadonlySet<RootData["theme"]> = new Set(["id", "compe", "online"]);

/**
 * The 48px header in the colours of the service that sent the member here. CSS alone picks the variant by
 * width (site-header.css): above 1280px inline navigation under a brand row that scrolls away; below it the
 * slide-in menu; up to 640px the id, compe and online headers centre the name and show a compact login icon.
 */
export function SiteHeader(props: SiteHeaderProps) {
  const rootData = useRootData();
  const theme = props.theme ?? rootData.theme;
  const member = props.member === undefined ? rootData.member : props.member;
  const { locale } = rootData;
  const { t } = useTranslation();
  const inlineItems = member
    ? getNavItems(true, locale).map((item) => ({ to: item.to, label: t(`nav.${item.label}`) }))
    : [
        { to: pathFor("index", locale), label: t("nav.home") },
        { to: pathFor("docs-terms-of-use", locale), label: t("nav.termsOfUse") },
        { to: pathFor("docs-privacy-policy", locale), label: t("nav.privacyPolicy") },
      ];
  return (
    <header className="site-header" data-theme={theme}>
      <div className="site-header__inner">
        <SiteMenu theme={theme} member={member} />
        <AppLink className="site-header__service" to={pathFor("index", locale)}>
          <span className="site-header__service-name">{t(`services.${theme}`)}</span>
          <span className="site-header__tagline">{t(`serviceTaglines.${theme}`)}</span>
        </AppLink>
        <nav className="site-header__nav" aria-label={t("header.navLabel")}>
          <ul className="site-header__nav-list">
            {inlineItems.map((item) => (
              <li key={item.to}>
                <AppLink className="site-header__nav-link" to={item.to}>
                  {item.label}
                </AppLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="site-header__right">
          <LanguageSwitch className="site-header__language" />
          {member ? (
            <UserMenu member={member} />
          ) : (
            <>
              <ul className="site-header__auth" aria-label={t("header.authLinksLabel")}>
                <li>
                  <AppLink className="site-header__auth-link" to={pathFor("auth-sign-up", locale)}>
                    {t("nav.signUp")}
                  </AppLink>
                </li>
                <li>
                  <AppLink
                    className="site-header__auth-link site-header__auth-link--primary"
                    to={pathFor("auth-sign-in", locale)}
                  >
                    {t("nav.logIn")}
                  </AppLink>
                </li>
              </ul>
              {COMPACT_LOGIN_THEMES.has(theme) ? (
                <UserMenu member={null} className="site-header__compact-login" />
              ) : null}
            </>
          )}
        </div>
      </div>
    </header>
  );
}
