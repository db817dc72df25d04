import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, smallint, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * A member's profile, keyed by the Cognito `sub` (Cognito keeps credentials and e-mail; names and locale are
 * mirrored there as attributes). Filled at the sign-up account-info step; kept 13 months after cancellation.
 */
export const memberProfiles = pgTable(
  "member_profiles",
  {
    sub: uuid().primaryKey(),
    familyName: text(),
    givenName: text(),
    birthYear: smallint(),
    country: text(),
    prefecture: text(),
    occupation: text(),
    organization: text(),
    preferredLanguage: text().notNull().default("ja"),
    /**
     * The member's newsletter choice: on unless they turned it off (registered members receive the newsletter, spec),
     * in their profile or with the export's unsubscribe link. A member without a row receives it too.
     */
    receivesNewsletter: boolean().notNull().default(true),
    /** Sign-up questionnaire answers (Q1-Q3), stored as given so later questionnaire changes need no migration. */
    questionnaire: jsonb().$type<Record<string, unknown>>(),
    /** The sibling service the member came from when signing up (data, compe, online, shop) or id. */
    referrerService: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    cancelledAt: timestamp({ withTimezone: true }),
    /**
     * When the cancelled member's Cognito user was deleted (or found already gone). Null on a cancelled profile
     * means the deletion is still owed: the cancellation is recorded first, and the purge job finishes it.
     */
    cognitoDeletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // The purge job scans only cancelled members by cancellation time.
    index("member_profiles_cancelled_at_idx")
      .on(table.cancelledAt)
      .where(sql`${table.cancelledAt} is not null`),
    // Cancellations whose Cognito user is still to be deleted: the purge job's retry list.
    index("member_profiles_cognito_deletion_owed_idx")
      .on(table.cancelledAt)
      .where(sql`${table.cancelledAt} is not null and ${table.cognitoDeletedAt} is null`),
  ],
);
