import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The member's passkeys as the app shows them. Cognito holds the credentials themselves (public key, counter) and
 * checks every ceremony; this table holds what /my/security/ lists, so a page view needs no ListWebAuthnCredentials
 * call: the name, when the passkey was added and last used. A row is written when CompleteWebAuthnRegistration
 * succeeds, touched when a passkey sign-in succeeds and deleted with DeleteWebAuthnCredential.
 */
export const memberPasskeys = pgTable(
  "member_passkeys",
  {
    /** The WebAuthn credential id (base64url), as Cognito's CredentialId names it. */
    credentialId: text().primaryKey(),
    sub: uuid().notNull(),
    /** The member's own name for it; null: called after the browser and device it was made on. */
    name: text(),
    /** The device and browser that made it ("iOS 17.4", "Safari 17"), from that request's User-Agent. */
    madeOnDevice: text().notNull(),
    madeOnBrowser: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    lastUsedAt: timestamp({ withTimezone: true }),
  },
  (table) => [index("member_passkeys_sub_idx").on(table.sub, table.createdAt)],
);

/**
 * Passkeys Cognito holds for a member that our pages did not add (member_passkeys does not list them): registered
 * around our pages with a token of the self-service scope (before the pool's pre token generation trigger took it
 * away). Our sign-in refuses them. Cognito has no administrator operation on a user's passkeys, so one is removed
 * with the member's server token, the next time a password typed on our pages makes one; until then the row says
 * the removal is owed, and the member was told once.
 */
export const unknownPasskeys = pgTable("unknown_passkeys", {
  credentialId: text().primaryKey(),
  sub: uuid().notNull(),
  foundAt: timestamp({ withTimezone: true }).notNull(),
  removedAt: timestamp({ withTimezone: true }),
});
