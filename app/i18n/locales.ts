/** The two UI languages. Japanese is the default and lives at unprefixed paths; English lives under /en/. */
export const LOCALES = ["ja", "en"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "ja";

export const LOCALE_DETAILS: Record<Locale, { iso: string; name: string }> = {
  ja: { iso: "ja_JP", name: "日本語" },
  en: { iso: "en_US", name: "English" },
};

const EN_PREFIX = "/en";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The locale a path belongs to: /en and /en/... are English, everything else Japanese. In any case, as React
 * Router matches paths: /EN/ is served by the English routes, so it must be in English too.
 */
export function localeFromPathname(pathname: string): Locale {
  const prefix = pathname.slice(0, EN_PREFIX.length + 1).toLowerCase();
  return prefix === EN_PREFIX || prefix === `${EN_PREFIX}/` ? "en" : "ja";
}

/** The same page in another language: /my/x/ <-> /en/my/x/. */
export function pathnameForLocale(pathname: string, target: Locale): string {
  const unprefixed = localeFromPathname(pathname) === "en" ? pathname.slice(EN_PREFIX.length) || "/" : pathname;
  return target === "en" ? `${EN_PREFIX}${unprefixed}` : unprefixed;
}

/**
 * The preferred supported language from an Accept-Language header, honouring q-values.
 * Only the root path uses this: every other URL names its language.
 */
export function localeFromAcceptLanguage(header: string | null): Locale {
  if (!header) return DEFAULT_LOCALE;
  const ranked = header
    .split(",")
    .map((part, position) => {
      const [tag = "", ...params] = part.trim().split(";");
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const quality = qParam ? Number(qParam.slice(2)) : 1;
      return { language: tag.toLowerCase().split("-")[0], quality: Number.isFinite(quality) ? quality : 0, position };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.position - b.position);
  const match = ranked.find((entry) => isLocale(entry.language));
  return match && isLocale(match.language) ? match.language : DEFAULT_LOCALE;
}
