import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The links of sign-in alert mails: each ends one session without signing in. Only the SHA-256 of the 256-bit token
 * is stored; a row is deleted by its use (single use) or by the purge once expired. One per session: sending the
 * alert again (a retry) replaces the token, so only the newest mail's link works.
 */
export const signInAlertTokens = pgTable(
  "sign_in_alert_tokens",
  {
    /** Hex SHA-256 of the token in the link. */
    tokenHash: text().primaryKey(),
    sessionId: uuid().notNull().unique(),
    sub: uuid().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (table) => [index("sign_in_alert_tokens_expires_at_idx").on(table.expiresAt)],
);
