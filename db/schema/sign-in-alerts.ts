import { index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The browsers each member has used, by the SHA-256 of the browser's device key (app/cookies): a sign-in from a
 * browser not listed here is new and mails the member an alert (app/domain/account/sign-in-alerts.server.ts). A
 * browser is listed by its first sign-in, or by the sign-up it did (then `firstSignedInAt` stays null until it signs
 * in). Kept apart from member_sessions, whose rows end and are purged, because knowing a browser outlasts its sessions.
 */
export const knownBrowsers = pgTable(
  "known_browsers",
  {
    sub: uuid().notNull(),
    /** Hex SHA-256 of the device key: the cookie's value itself is never needed again. */
    deviceKeyHash: text().notNull(),
    firstSeenAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Null for the browser that signed up until it signs in: the member's first sign-in is never "new". */
    firstSignedInAt: timestamp({ withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.sub, table.deviceKeyHash] })],
);

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
