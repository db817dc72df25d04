import type { i18n as I18n } from "i18next";
import { prefectureNameKey } from "~/components/form/prefecture-choices";
import { OCCUPATIONS, PROFILE_FIELD_ORDER, Q1_OPTIONS, Q2_OPTIONS, Q3_OPTIONS } from "~/domain/forms/form-choices";
import { JAPAN, listedPrefectureOf } from "~/domain/forms/prefectures";
import { isLocale } from "~/i18n/locales";

type ProfileField = (typeof PROFILE_FIELD_ORDER)[number];

/** The profile as a table stores it (memberProfiles, a legacy account's import): codes and the member's own text. */
export type StoredProfileValues = Partial<Record<ProfileField, string | number | null | undefined>>;

const includes = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === "string" && (list as readonly string[]).includes(value);

/**
 * The profile's values as the member's profile page, their data page and the staff's member page show them, in the
 * page's language: the country by name, one of Japan's 47 by name, the occupation and the language by their labels
 * (sign-up's choices); what the member typed as typed; null where nothing is stored. One table for all three pages.
 */
export function describeProfileValues(
  profile: StoredProfileValues | null,
  i18n: I18n,
  locale: string,
): Record<ProfileField, string | number | null> {
  const t = i18n.getFixedT(locale, "signUp");
  const country = profile?.country ?? null;
  const prefecture = profile?.prefecture ?? null;
  const listedPrefecture = country === JAPAN ? listedPrefectureOf(String(prefecture ?? "")) : undefined;
  const occupation = profile?.occupation ?? null;
  const language = profile?.preferredLanguage ?? null;
  return {
    familyName: profile?.familyName ?? null,
    givenName: profile?.givenName ?? null,
    birthYear: profile?.birthYear ?? null,
    country:
      country === null
        ? null
        : country === "other"
          ? t("options.otherCountry")
          : (new Intl.DisplayNames([locale], { type: "region" }).of(String(country)) ?? String(country)),
    // One of Japan's 47 in the page's language ("Tokyo"); anything else as typed.
    prefecture: listedPrefecture
      ? i18n.getFixedT(locale, "prefectures")(prefectureNameKey(listedPrefecture))
      : prefecture,
    occupation: includes(OCCUPATIONS, occupation) ? t(`options.occupation.${occupation}`) : occupation,
    organization: profile?.organization ?? null,
    preferredLanguage: isLocale(language) ? t(`options.language.${language}`) : language,
  };
}

/** The questionnaire's questions, each with its choices (labels: signUp's options.q1 …) and its "other" text. */
const QUESTIONS = [
  { question: "q1", options: Q1_OPTIONS, other: null },
  { question: "q2", options: Q2_OPTIONS, other: "q2Other" },
  { question: "q3", options: Q3_OPTIONS, other: "q3Other" },
] as const;

/**
 * The sign-up questionnaire's answers as sentences: each question by its text, the choices by their labels, and the
 * "other" text after the "other" choice's label. Answers stored under a name the questionnaire no longer asks come
 * last, under "other answers", so nothing held is left off the page.
 */
export function describeQuestionnaire(
  questionnaire: Readonly<Record<string, unknown>> | null,
  i18n: I18n,
  locale: string,
): { label: string; value: string }[] {
  if (!questionnaire) return [];
  const t = i18n.getFixedT(locale, "signUp");
  const separator = locale === "ja" ? "、" : ", ";
  const known = new Set<string>();
  const answers = QUESTIONS.flatMap(({ question, options, other }) => {
    known.add(question);
    if (other) known.add(other);
    const given = questionnaire[question];
    const otherText = other ? questionnaire[other] : null;
    const choices = (Array.isArray(given) ? given : given === undefined || given === null ? [] : [given]).map(
      (choice) => {
        const label = includes(options, choice) ? t(`options.${question}.${choice}` as never) : String(choice);
        if (choice !== "other" || typeof otherText !== "string" || !otherText) return label;
        return locale === "ja" ? `${label}（${otherText}）` : `${label} (${otherText})`;
      },
    );
    if (choices.length === 0) return [];
    return [{ label: t(`account.${question}`), value: choices.join(separator) }];
  });
  const rest = Object.entries(questionnaire).filter(
    ([name, value]) => !known.has(name) && value !== null && value !== undefined,
  );
  return rest.length === 0
    ? answers
    : [
        ...answers,
        {
          label: t("account.otherAnswers"),
          value: rest
            .map(([, value]) => (Array.isArray(value) ? value.join(separator) : String(value)))
            .join(separator),
        },
      ];
}
