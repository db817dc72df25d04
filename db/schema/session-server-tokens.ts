import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { memberSessions } from "./member-sessions";

/**
 * A session's token of the server-only app client (COGNITO_SERVER_CLIENT_ID), from the password typed on it: a
 * password sign-in without 2-step verification, or the re-authentication step. It is the only kind of token
 * Cognito's self-service operations accept (the others lose that scope in the pool's pre token generation trigger),
 * so the authenticator set-up and the passkeys take it from here. Never sent anywhere; AES-256-GCM under the session
 * secrets like the refresh tokens; at most one per session, replaced by the next step and useless after its 10
 * minutes (the purge deletes what is left).
 */
export const sessionServerTokens = pgTable(
  "session_server_tokens",
  {
    sessionId: uuid()
      .primaryKey()
      .references(() => memberSessions.id, { onDelete: "cascade" }),
    sub: uuid().notNull(),
    accessTokenEncrypted: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  // The purge's sweep of expired tokens.
  (table) => [index("session_server_tokens_expires_at_idx").on(table.expiresAt)],
);
