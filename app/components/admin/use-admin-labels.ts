import { useTranslation } from "~/i18n/use-translation";

/**
 * Labels for values the database holds as free text (status, language, referrer, cancellation reason, audit
 * action): a value the locales do not know (a language added later, a new action) shows as itself rather than as a
 * translation key.
 */
export function useAdminLabels() {
  const { t, i18n } = useTranslation("admin");
  const lookUp = t as unknown as (key: string) => string;
  const labelOf = (key: string, value: string) => {
    const label = lookUp(key);
    return label === key ? value : label;
  };
  return {
    locale: i18n.language,
    status: (value: string) => labelOf(`statuses.${value}`, value),
    language: (value: string | null) => (value === null ? lookUp("notSet") : labelOf(`languages.${value}`, value)),
    /** No referrer is a sign-up on this app itself ("id"). */
    referrer: (value: string | null) => labelOf(`referrers.${value ?? "id"}`, value ?? "id"),
    reason: (value: string) => labelOf(`withdrawal:reasons.${value}`, value),
    /** Actions are named like "user.refresh": the locales nest them the same way. */
    action: (value: string) => labelOf(`audit.actions.${value}`, value),
    profileField: (name: string) => labelOf(`signUp:account.${name}`, name),
  };
}
