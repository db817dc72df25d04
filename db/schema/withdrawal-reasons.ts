import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Why members cancelled: statistics. The only personal link is the Cognito `sub` (no e-mail, no names), so rows
 * are kept when the purge job removes the profile 13 months after cancellation.
 */
export const withdrawalReasons = pgTable(
  "withdrawal_reasons",
  {
    id: uuid().primaryKey().defaultRandom(),
    sub: uuid().notNull(),
    /** One of WITHDRAWAL_REASONS (app/domain/forms/form-choices.ts). */
    reason: text().notNull(),
    /** The free text asked for when the reason is "other"; null otherwise. */
    detail: text(),
    /** The page's language when the member cancelled (ja, en). */
    locale: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("withdrawal_reasons_created_at_idx").on(table.createdAt),
    // The staff's member page shows the member's cancellation answers.
    index("withdrawal_reasons_sub_idx").on(table.sub),
  ],
);
