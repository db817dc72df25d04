import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * One row per signed-in browser ("device"). The browser holds only the row's id (session cookie) and its device
 * key (a long-lived cookie naming the browser across sign-ins); Cognito's refresh token stays here, encrypted.
 * A revoked row (sign-out, deactivation, password change, cancellation) signs that browser out on its next request.
 * Rows are never reused: every sign-in makes a new id (a captured cookie dies with its session).
 */
export const memberSessions = pgTable(
  "member_sessions",
  {
    id: uuid().primaryKey().defaultRandom(),
    sub: uuid().notNull(),
    /** The member's e-mail at sign-in, so the header can name the member without asking Cognito. */
    email: text().notNull(),
    deviceKey: text().notNull(),
    deviceName: text().notNull(),
    browser: text().notNull(),
    /** AES-256-GCM under a key derived from the session secret (app/domain/sessions/refresh-tokens.server.ts). */
    refreshTokenEncrypted: text().notNull(),
    /**
     * The `origin_jti` claim Cognito puts in every access token issued from this sign-in's refresh token. It ties
     * a bearer token on `/api/*` to its session, so a token of an ended session is refused.
     */
    originJti: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Null while the sign-in waits on the device-limit screen: the member has authenticated but the browser is
     * not signed in until a slot is free. Only activated rows count towards the limit.
     */
    activatedAt: timestamp({ withTimezone: true }),
    lastLoginAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * When this browser last renewed its access token, which a browser in use does about once an hour: the device
     * list's "last active". Not written on every page view (a page view costs a read only). Null: not renewed since
     * the sign-in (or a sibling's registered device, which renews its own tokens).
     */
    lastActiveAt: timestamp({ withTimezone: true }),
    /**
     * When the member last typed their password on this session: a password sign-in, the password change or the
     * re-authentication step. Sensitive changes need it within the last 10 minutes
     * (app/domain/account/reauthentication.server.ts). Null: never on this session (a sibling's registered device).
     */
    passwordVerifiedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    /**
     * When Cognito confirmed that the ended session's refresh token is revoked (or can no longer be used). Null on
     * an ended row means revocation is still owed: the purge job retries it (revokeUnconfirmedRefreshTokens).
     */
    refreshTokenRevokedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // A browser has at most one live session per member: signing in again replaces it instead of using a slot.
    uniqueIndex("member_sessions_live_device_idx")
      .on(table.sub, table.deviceKey)
      .where(sql`${table.revokedAt} is null and ${table.activatedAt} is not null`),
    index("member_sessions_sub_idx").on(table.sub),
    // The bearer-token check on every API call looks a token's session up by this.
    index("member_sessions_origin_jti_idx").on(table.originJti),
    // Ended rows whose refresh token Cognito has not yet confirmed revoked: the purge job's retry list.
    index("member_sessions_revocation_owed_idx")
      .on(table.revokedAt)
      .where(sql`${table.revokedAt} is not null and ${table.refreshTokenRevokedAt} is null`),
    // Marks a revocation confirmed by the token it revoked (hash: the encrypted tokens are too long for a btree).
    index("member_sessions_refresh_token_idx").using("hash", table.refreshTokenEncrypted),
  ],
);
