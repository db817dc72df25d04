import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * The sign-in's second step (the authenticator app's code, a recovery code; members and staff alike), failed in a
 * row, per account (app/domain/security/second-step-guard.server.ts). One row per Cognito user name (what the
 * challenge names), kept until a second step succeeds: the count never resets on a clock, only the delay before the
 * next try grows, up to a ceiling that only a password change or reset lifts.
 */
export const secondStepFailures = pgTable("second_step_failures", {
  username: text().primaryKey(),
  consecutiveFailures: integer().notNull(),
  lastFailedAt: timestamp({ withTimezone: true }).notNull(),
});

/**
 * A right password waiting for its second step (app/domain/security/unfinished-second-steps.server.ts): one row per
 * Cognito challenge, until the second step succeeds in that browser, or the member's challenges lie quiet long enough
 * to be reported (security record and mail) as someone else's, and deleted.
 */
export const secondStepChallenges = pgTable(
  "second_step_challenges",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    sub: uuid().notNull(),
    /** Hex SHA-256 of Cognito's challenge Session, which the browser's step cookie carries: this row's challenge. */
    challengeHash: text().notNull(),
    /** Hex SHA-256 of the browser's device key (null for the staff sign-in, which sets none). */
    deviceKeyHash: text(),
    /** The address typed, where the report goes. */
    email: text().notNull(),
    deviceName: text().notNull(),
    browser: text().notNull(),
    ipAddress: text().notNull(),
    /** The sign-in page's language, for the report's mail when the member chose none. */
    locale: text().notNull(),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    /** The password step, or the latest refused code. */
    lastActivityAt: timestamp({ withTimezone: true }).notNull(),
    /** Codes (or recovery codes) refused within this challenge. */
    failures: integer().notNull().default(0),
  },
  (table) => [
    // A refused code and a success find their challenge by it.
    uniqueIndex("second_step_challenges_challenge_idx").on(table.challengeHash),
    // A sign-in in a browser ends that browser's challenges of the member.
    index("second_step_challenges_member_browser_idx").on(table.sub, table.deviceKeyHash),
    // The report job's "quiet for 15 minutes".
    index("second_step_challenges_activity_idx").on(table.lastActivityAt),
  ],
);
