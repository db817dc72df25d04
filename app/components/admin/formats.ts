/**
 * Staff read times in Japan time whatever their browser's zone: the data (sign-up days, the filters) is in Japan
 * days, and the server renders the page, so the browser's zone is not known anyway.
 */
const STAFF_TIME_ZONE = "Asia/Tokyo";

export function formatDay(value: Date | string | null, locale: string): string {
  if (value === null) return "";
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: STAFF_TIME_ZONE }).format(new Date(value));
}

export function formatDateTime(value: Date | string | null, locale: string): string {
  if (value === null) return "";
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: STAFF_TIME_ZONE,
  }).format(new Date(value));
}

/** "山田 太郎" in Japanese order; the directory stores the two names apart. */
export function formatName(familyName: string | null, givenName: string | null): string {
  return [familyName, givenName].filter(Boolean).join(" ");
}
