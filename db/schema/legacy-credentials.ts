import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Accounts from before 1 July 2021, imported by staff (`npm run legacy:import`). On a member's first sign-in
 * the password is checked here and the account is moved to Cognito with it (lazy migration); the row then
 * records when and as which Cognito user. The e-mail is stored lower-cased, so look-ups ignore case.
 */
export const legacyCredentials = pgTable(
  "legacy_credentials",
  {
    email: text().primaryKey(),
    /** bcrypt ($2a$/$2b$/$2y$). */
    passwordHash: text().notNull(),
    profile: jsonb().$type<LegacyProfile>().notNull(),
    importedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    migratedAt: timestamp({ withTimezone: true }),
    migratedSub: uuid(),
  },
  // The member directory looks a member's migration up by the Cognito user it became.
  (table) => [index("legacy_credentials_migrated_sub_idx").on(table.migratedSub)],
);

export interface LegacyProfile {
  familyName?: string;
  givenName?: string;
  birthYear?: number;
  country?: string;
  prefecture?: string;
  occupation?: string;
  organization?: string;
  preferredLanguage?: string;
}
