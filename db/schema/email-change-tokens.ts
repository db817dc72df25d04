import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * One row per requested e-mail change. The link in the mail carries a random 32-byte token; only its SHA-256
 * is stored, so a leaked table cannot be used to take over an account. A row is usable once (used_at) and
 * until expires_at (app/domain/account/email-change.server.ts).
 */
export const emailChangeTokens = pgTable(
  "email_change_tokens",
  {
    /** Hex SHA-256 of the token in the link. */
    tokenHash: text().primaryKey(),
    sub: uuid().notNull(),
    oldEmail: text().notNull(),
    newEmail: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    index("email_change_tokens_sub_idx").on(table.sub),
    // The purge job deletes tokens by how long ago they expired.
    index("email_change_tokens_expires_at_idx").on(table.expiresAt),
  ],
);
