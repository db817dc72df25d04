import { useTranslation } from "~/i18n/use-translation";
import { useLocation } from "react-router";
import { LOCALES, LOCALE_DETAILS, type Locale } from "~/i18n/locales";
import { LOCALE_QUERY_PARAM } from "~/routing/canonical-url";
import { useRootData } from "./use-root-data";

/** The current page in another language: the server turns `?locale=` into the right path and remembers it. */
function switchHref(pathname: string, search: string, target: Locale): string {
  const query = new URLSearchParams(search);
  query.set(LOCALE_QUERY_PARAM, target);
  return `${pathname}?${query}`;
}

/**
 * The Ja/En switch of the header, menu and footer. Plain links, not <Link>: the switch is a full page load so
 * the server can redirect and set the language cookie, and it works the same with JavaScript off.
 */
export function LanguageSwitch({ className }: { className?: string }) {
  const { t } = useTranslation();
  const { locale } = useRootData();
  const { pathname, search } = useLocation();
  return (
    <ul className={className ? `language-switch ${className}` : "language-switch"} aria-label={t("language.label")}>
      {LOCALES.map((target) => (
        <li key={target} className="language-switch__item">
          {target === locale ? (
            <span className="language-switch__current" aria-current="true" lang={target}>
              <LanguageName locale={target} short={t(`language.short.${target}`)} />
            </span>
          ) : (
            // The link's name is the language's own name; the short label on screen is the link's only content.
            <a
              className="language-switch__link"
              href={switchHref(pathname, search, target)}
              hrefLang={target}
              lang={target}
              aria-label={LOCALE_DETAILS[target].name}
            >
              {t(`language.short.${target}`)}
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}

/** "JA"/"EN" on screen, the language's own name for screen readers. */
function LanguageName({ locale, short }: { locale: Locale; short: string }) {
  return (
    <>
      <span aria-hidden="true">{short}</span>
      <span className="visually-hidden">{LOCALE_DETAILS[locale].name}</span>
    </>
  );
}
