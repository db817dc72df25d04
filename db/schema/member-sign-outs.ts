import { pgTable, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * When each member was last signed out everywhere (a password change). Sessions we record end by their own row;
 * this is for sign-ins we never recorded (a sibling service's, before it registers the device): the member API
 * refuses their access tokens issued before this time, though their signatures still hold for up to an hour.
 */
export const memberSignOuts = pgTable("member_sign_outs", {
  sub: uuid().primaryKey(),
  signedOutAt: timestamp({ withTimezone: true }).notNull(),
});
