import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The staff area's sessions (app/domain/sessions/staff-sessions.server.ts), apart from the members' page sessions:
 * signed in through the staff app client with the password and a second factor, held in a host-only cookie, at
 * most 8 hours long and ended after 30 minutes idle. Ending the member's sessions for them ends these too
 * (app/domain/sessions/session-ending.server.ts); the purge deletes them 30 days after they ended.
 */
export const staffSessions = pgTable(
  "staff_sessions",
  {
    id: uuid().primaryKey().defaultRandom(),
    sub: uuid().notNull(),
    /** The staff member's e-mail at sign-in, for the audit log's actor. */
    email: text().notNull(),
    /**
     * The staff client's refresh token, AES-256-GCM as the members' (app/domain/sessions/refresh-tokens.server.ts).
     * Null once the session has ended and Cognito revoked it (or refused it, or its 8 hours are over): an ended
     * session keeps no token; one still set on an ended row is a revocation owed to the purge job.
     */
    refreshTokenEncrypted: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    /** The last staff page view: 30 minutes after it the session has ended. */
    lastSeenAt: timestamp({ withTimezone: true }).notNull(),
    /** When the password and second factor were last entered: high-impact actions need it within 10 minutes. */
    passwordVerifiedAt: timestamp({ withTimezone: true }).notNull(),
    endedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index("staff_sessions_sub_idx").on(table.sub)],
);

/**
 * A staff member's first visit without a second factor (app/domain/sessions/staff-factor-setup.server.ts): the
 * staff sign-in's password gave the staff client's tokens and the server-only client's token; they wait here, never
 * in a cookie, while the staff member sets up the authenticator app on the sign-in page, and its first code opens the
 * staff session with them. Secrets AES-256-GCM as the refresh tokens; the server token's 10 minutes bound the row,
 * and the purge revokes the staff refresh token of a row left and deletes it.
 */
export const staffFactorSetups = pgTable(
  "staff_factor_setups",
  {
    id: uuid().primaryKey().defaultRandom(),
    sub: uuid().notNull(),
    email: text().notNull(),
    staffRefreshTokenEncrypted: text().notNull(),
    serverAccessTokenEncrypted: text().notNull(),
    /** Cognito's authenticator secret (AssociateSoftwareToken), shown as the QR code until the first code. */
    secretEncrypted: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  // The purge's sweep of set-ups left unfinished.
  (table) => [index("staff_factor_setups_expires_at_idx").on(table.expiresAt)],
);
