import { bigint, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * Members who turned on 2-step verification with an authenticator app: our copy of what Cognito knows, written when
 * the member (or staff) turns it on or off, so that pages and the sibling API can say so without a Cognito call. The
 * secret itself lives only at Cognito.
 */
export const twoStepVerifications = pgTable(
  "two_step_verifications",
  {
    sub: uuid().primaryKey(),
    /**
     * Cognito's user name (the access token's `username`), which never changes: the sign-in's code step knows the
     * member only by the name Cognito's challenge gives (USER_ID_FOR_SRP), and finds their recovery codes by it.
     */
    username: text().notNull(),
    enabledAt: timestamp({ withTimezone: true }).notNull(),
    /**
     * Set just before a recovery code's sign-in switches the member's TOTP off at Cognito, cleared once it is on
     * again: a mark left behind (the process died between the two) is the purge job's to switch back on.
     */
    totpOffSince: timestamp({ withTimezone: true }),
  },
  (table) => [uniqueIndex("two_step_verifications_username_idx").on(table.username)],
);

/**
 * A member's recovery codes: 10 at a time, each single-use. Only the hex SHA-256 of each code is kept (a code is 80
 * random bits, so a fast hash suffices: there is nothing to guess from it); a code is looked up by its hash. Making
 * new codes, or turning 2-step verification off, deletes the old ones.
 */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    sub: uuid().notNull(),
    codeHash: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  // A member's codes (by its first column) and the look-up of one code.
  (table) => [uniqueIndex("recovery_codes_member_hash_idx").on(table.sub, table.codeHash)],
);
