import { pgTable, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * When "forgot password" last mailed an invited member a new temporary password (AdminCreateUser RESEND). Cognito
 * says when the user was created (its first invitation) but not when an invitation was sent again, and a new one
 * replaces the password the member holds: with this, one is sent only once the previous one has expired
 * (app/domain/account/password-reset.server.ts).
 */
export const invitationResends = pgTable("invitation_resends", {
  sub: uuid().primaryKey(),
  resentAt: timestamp({ withTimezone: true }).notNull(),
});
