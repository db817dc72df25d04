import type { ReactNode } from "react";
import { Link } from "react-router";
import type { Locale } from "~/i18n/locales";
import { useTranslation } from "~/i18n/use-translation";
import { AppLink } from "./app-link";
import { pathFor } from "~/routing/route-table";
import { getNavItems } from "./site-navigation";

/**
 * The account links of the slide-in menu and the user menu: sign up / log in, or the member's pages, log out
 * and (set apart) cancellation. `block` is the CSS block the links are styled by.
 */
export function AccountLinks({
  block,
  signedIn,
  locale,
  first,
}: {
  block: "site-menu" | "user-menu";
  signedIn: boolean;
  locale: Locale;
  /** An item before the account links (the menu starts with Home). */
  first?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <ul className={`${block}__items`}>
        {first}
        {getNavItems(signedIn, locale).map((item) => (
          <li key={item.label}>
            <AppLink className={`${block}__item`} to={item.to}>
              {t(`nav.${item.label}`)}
            </AppLink>
          </li>
        ))}
        {signedIn ? (
          <li>
            {/* Never prefetched: loading the sign-out page early must not be able to sign anyone out. */}
            <Link className={`${block}__item`} to={pathFor("auth-sign-out", locale)}>
              {t("nav.signOut")}
            </Link>
          </li>
        ) : null}
      </ul>
      {signedIn ? (
        <p className={`${block}__withdrawal`}>
          <AppLink to={pathFor("my-withdrawal", locale)}>{t("nav.withdrawal")}</AppLink>
        </p>
      ) : null}
    </>
  );
}
