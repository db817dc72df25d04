import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Attempt counters for rate limits (app/domain/limits/rate-limit.server.ts), one row per key and fixed window. Kept
 * here rather than in process memory so a limit holds across every instance behind the load balancer. The key
 * names the policy and a sha256 of the subject (e-mail or client network): no address is stored in clear.
 */
export const rateLimitWindows = pgTable(
  "rate_limit_windows",
  {
    key: text().notNull(),
    windowStart: timestamp({ withTimezone: true }).notNull(),
    /** When the window ends; rows past it count for nothing and are swept. */
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    count: integer().notNull(),
  },
  (table) => [
    // The upsert-increment's conflict target: one counter per key and window.
    primaryKey({ columns: [table.key, table.windowStart] }),
    // The opportunistic sweep deletes ended windows by this column alone.
    index("rate_limit_windows_expires_at_idx").on(table.expiresAt),
  ],
);
