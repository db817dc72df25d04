/**
 * The choices the forms offer, apart from their Zod schemas (the *-schemas.ts beside this module): pages import
 * these to draw options and labels, and a page that imported a schema module for them would make every browser
 * download Zod, whose schema definitions the bundler cannot drop. Keep this module free of Zod.
 */

/** The profile's fields in the order the member's and the staff's pages list them; labels are signUp's account.*. */
export const PROFILE_FIELD_ORDER = [
  "familyName",
  "givenName",
  "birthYear",
  "country",
  "prefecture",
  "occupation",
  "organization",
  "preferredLanguage",
] as const;

/** Sign-up questionnaire options; labels live in the signUp namespace. */
export const Q1_OPTIONS = ["none", "work", "friend", "magazine", "facebook", "instagram", "twitter"] as const;
export const Q2_OPTIONS = ["search", "content", "price", "other"] as const;
export const Q3_OPTIONS = ["print", "web", "instagram", "twitter", "other"] as const;
export const OCCUPATIONS = [
  "architect",
  "design",
  "engineering",
  "construction",
  "realEstate",
  "academic",
  "student",
  "media",
  "public",
  "other",
] as const;
/** ISO 3166-1 codes offered first; "other" covers the rest. Names come from Intl.DisplayNames in the page's language. */
export const COUNTRIES = [
  "JP",
  "US",
  "GB",
  "CN",
  "KR",
  "TW",
  "HK",
  "SG",
  "TH",
  "VN",
  "ID",
  "MY",
  "PH",
  "IN",
  "AU",
  "NZ",
  "CA",
  "FR",
  "DE",
  "IT",
  "ES",
  "NL",
  "CH",
  "SE",
  "DK",
  "NO",
  "FI",
  "BR",
  "MX",
  "other",
] as const;

/** The actions a member's staff page runs after a confirmation; each is one staff verb (staff-actions.server.ts). */
export const CONFIRMED_STAFF_ACTIONS = ["refresh", "sessions-end", "disable", "enable", "two-step-off"] as const;
export type ConfirmedStaffAction = (typeof CONFIRMED_STAFF_ACTIONS)[number];

/** The cancellation form's reasons; labels live in the withdrawal namespace. */
export const WITHDRAWAL_REASONS = ["noLongerNeeded", "price", "content", "usability", "otherAccount", "other"] as const;
export type WithdrawalReason = (typeof WITHDRAWAL_REASONS)[number];
export const MAX_WITHDRAWAL_DETAIL_LENGTH = 1000;
