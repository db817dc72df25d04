import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * A change about to be made at Cognito before our record of it (app/domain/account/pending-cognito-changes.server.ts):
 * written and committed before the Cognito call, deleted by the transaction that records the change (or by the
 * flow when Cognito refused). A row left behind means the process died, or Cognito's answer was lost, in between:
 * the repair asks Cognito what is true, or, for a password, the member's next password sign-in tells.
 */
export const pendingCognitoChanges = pgTable(
  "pending_cognito_changes",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** The member; null until Cognito names one (a legacy migration, an invited member's first password). */
    sub: uuid(),
    /** The member's address when the change began, lower-cased: how a row without a sub is found. */
    email: text().notNull(),
    /** PendingCognitoChangeKind. */
    kind: text().notNull(),
    /** What the flow would have recorded (the new address, the credential id, the client IP…). Never a secret. */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    /**
     * For a new password: its bcrypt hash, which the member's next password sign-in is compared with (Cognito cannot
     * say afterwards whether a password changed). Never logged or shown; it goes with the row.
     */
    passwordVerifier: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    /** The repair holding the row until then (for update skip locked, so two instances never both do it). */
    leasedUntil: timestamp({ withTimezone: true }),
    /** For a new password left unresolved: when the repair ended the member's sessions for it (done once). */
    sessionsEndedAt: timestamp({ withTimezone: true }),
  },
  // The password sign-in looks for the member's rows; the repair takes the oldest.
  (table) => [
    index("pending_cognito_changes_sub_idx").on(table.sub),
    index("pending_cognito_changes_email_idx").on(table.email),
    index("pending_cognito_changes_created_idx").on(table.createdAt),
  ],
);
