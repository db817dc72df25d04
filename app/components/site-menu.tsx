import { useRef } from "react";
import { useTranslation } from "~/i18n/use-translation";
import type { RootData } from "~/root.server";
import { pathFor } from "~/routing/route-table";
import { AccountLinks } from "./account-links";
import { AppLink } from "./app-link";
import { CloseIcon, MenuIcon } from "./icons";
import { LanguageSwitch } from "./language-switch";
import { getSiblingLinks } from "./site-navigation";
import { useDisclosureDismiss } from "./use-disclosure-dismiss";
import { useRootData } from "./use-root-data";

type SiteMenuProps = { theme: RootData["theme"]; member: RootData["member"] };

/**
 * The slide-in menu of the medium and small headers. A <details> element, so it opens and closes with
 * JavaScript off: while open, its <summary> becomes the close control and the dim "dummy layer" beside the
 * drawer (see site-menu.css), so a click there closes it too.
 */
export function SiteMenu({ theme, member }: SiteMenuProps) {
  const ref = useRef<HTMLDetailsElement>(null);
  useDisclosureDismiss(ref);
  const { t } = useTranslation();
  const { locale, links } = useRootData();
  const siblings = getSiblingLinks(links);
  return (
    // A click before hydration may have opened it already; that is not a mismatch worth a warning.
    <details ref={ref} suppressHydrationWarning className="site-menu">
      <summary className="site-menu__toggle">
        <span className="site-menu__toggle-open">
          <MenuIcon />
          <span className="visually-hidden">{t("menu.open")}</span>
        </span>
        <span className="site-menu__toggle-close">
          <CloseIcon />
          <span className="visually-hidden">{t("menu.close")}</span>
        </span>
      </summary>
      <div className="site-menu__drawer">
        <div className="site-menu__head">
          <p className="site-menu__service">{t(`services.${theme}`)}</p>
          <p className="site-menu__tagline">{t(`serviceTaglines.${theme}`)}</p>
          <p className="site-menu__greeting">
            {member ? t("menu.greeting", { name: member.displayName }) : t("menu.guest")}
          </p>
          <LanguageSwitch className="site-menu__language" />
        </div>
        <div className="site-menu__panels">
          <nav className="site-menu__main" aria-label={t("menu.label")}>
            <AccountLinks
              block="site-menu"
              signedIn={member !== null}
              locale={locale}
              first={
                <li>
                  <AppLink className="site-menu__item" to={pathFor("index", locale)}>
                    {t("nav.home")}
                  </AppLink>
                </li>
              }
            />
          </nav>
          <div className="site-menu__side">
            <h2 className="site-menu__side-title">{t("menu.relatedServices")}</h2>
            <ul className="site-menu__side-list">
              {siblings.map(({ service, origin }) => (
                <li key={service}>
                  <a href={origin}>
                    {t(`services.${service}`)}
                    <span className="site-menu__side-tagline">{t(`serviceTaglines.${service}`)}</span>
                  </a>
                </li>
              ))}
              <li>
                <a href={links.corporate}>{t("menu.corporate")}</a>
              </li>
            </ul>
          </div>
        </div>
      </div>
    </details>
  );
}
