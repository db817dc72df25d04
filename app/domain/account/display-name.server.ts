import type { Locale } from "~/i18n/locales";

export interface NamedMember {
  email: string;
  familyName?: string | null;
  givenName?: string | null;
}

/** The profile counts as filled only when both names are present. */
export function isProfileFilled(member: NamedMember): boolean {
  return Boolean(member.familyName?.trim()) && Boolean(member.givenName?.trim());
}

/**
 * The name shown in the header: the e-mail until the profile is filled; then family name first in Japanese
 * ("山田 太郎"), given name first in other languages ("Taro Yamada").
 */
export function displayName(member: NamedMember, locale: Locale): string {
  if (!isProfileFilled(member)) return member.email;
  const family = member.familyName!.trim();
  const given = member.givenName!.trim();
  return locale === "ja" ? `${family} ${given}` : `${given} ${family}`;
}
