import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Every staff action: who, what, when, on whom, the state before and after, and the request it came in. Append-only:
 * a trigger (migration 0009) refuses UPDATE and DELETE, so the application cannot rewrite its own history.
 */
export const staffAuditEvents = pgTable(
  "staff_audit_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    actorSub: uuid().notNull(),
    actorEmail: text().notNull(),
    /** What was done, e.g. user.refresh, user.email-change, user.sessions-end, user.disable, user.enable. */
    action: text().notNull(),
    /** The member acted on; null for actions on no one member (an import, say). */
    targetSub: uuid(),
    before: jsonb().$type<Record<string, unknown>>(),
    after: jsonb().$type<Record<string, unknown>>(),
    requestId: text().notNull(),
  },
  (table) => [
    index("staff_audit_events_occurred_at_idx").on(table.occurredAt),
    index("staff_audit_events_target_idx").on(table.targetSub, table.occurredAt),
    index("staff_audit_events_actor_idx").on(table.actorSub, table.occurredAt),
    index("staff_audit_events_action_idx").on(table.action, table.occurredAt),
  ],
);
