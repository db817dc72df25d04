import type { TFunction } from "i18next";

/**
 * Labels for values the database holds as free text (status, language, referrer, cancellation reason), made in a
 * loader so the page sends the labels it shows rather than every translation: a value the locales do not know (a
 * language added later) shows as itself.
 */
export function adminLabels(t: TFunction<("admin" | "withdrawal")[]>) {
  const labelOf = (key: string, value: string) => t(key as never, { defaultValue: value });
  return {
    status: (value: string) => labelOf(`admin:statuses.${value}`, value),
    language: (value: string | null) =>
      value === null ? t("admin:notSet") : labelOf(`admin:languages.${value}`, value),
    /** No referrer is a sign-up on this app itself ("id"). */
    referrer: (value: string | null) => labelOf(`admin:referrers.${value ?? "id"}`, value ?? "id"),
    reason: (value: string) => labelOf(`withdrawal:reasons.${value}`, value),
  };
}
