import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * When the app last read a staff group's members from Cognito (ListUsersInGroup) into the member directory's
 * `groups`: staff rights are believed only while this is recent (app/domain/directory/staff-group-check.server.ts).
 * `claimedAt` lets one instance at a time do the check without holding a transaction over the Cognito calls.
 */
export const staffGroupChecks = pgTable("staff_group_checks", {
  groupName: text().primaryKey(),
  /** The start of the last check that finished: the membership was read no earlier than this. */
  checkedAt: timestamp({ withTimezone: true }),
  claimedAt: timestamp({ withTimezone: true }).notNull(),
});
