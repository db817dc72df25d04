import { type SQL, and, desc, eq, gte, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { staffAuditEvents } from "~db/schema";
import { tokyoDayStart } from "./member-search.server";

/** Every kind of staff action the log records; the UI translates them (admin:audit.actions.*). */
export const STAFF_ACTIONS = [
  "user.refresh",
  "user.email-change",
  "user.sessions-end",
  "user.disable",
  "user.enable",
  // 2-step verification turned off for a member who lost their phone (staff-actions.server.ts).
  "user.two-step-off",
  // An action on a staff member's account, refused (staff-actions.server.ts): which one was asked for.
  "user.action-refused",
  // A staff download (app/domain/staff/member-export.server.ts): which one and its parameters.
  "data.export",
  "csv-import.start",
  "csv-import.cancel",
  "csv-import.complete",
  // The sibling services' deliveries (app/domain/events/endpoint-admin.server.ts): one event sent again, every event
  // since a time, a disabled endpoint enabled from a time.
  "events.redeliver",
  "events.redeliver-since",
  "events.endpoint-enable",
] as const;
export type StaffAction = (typeof STAFF_ACTIONS)[number];

/** Who acted: the signed-in admin (the page's session, or the API's bearer token). */
export interface StaffActor {
  sub: string;
  email: string;
}

export type AuditState = Record<string, unknown>;

export interface StaffAuditEvent {
  id: number;
  occurredAt: Date;
  actorSub: string;
  actorEmail: string;
  action: StaffAction;
  targetSub: string | null;
  before: AuditState | null;
  after: AuditState | null;
  requestId: string;
}

/** Appends one event. The table refuses UPDATE and DELETE (a trigger, migration 0009): the history stays as written. */
export async function recordStaffAction(
  db: Database,
  event: {
    actor: StaffActor;
    action: StaffAction;
    targetSub: string | null;
    before: AuditState | null;
    after: AuditState | null;
    requestId: string;
  },
): Promise<StaffAuditEvent> {
  const [row] = await db
    .insert(staffAuditEvents)
    .values({
      actorSub: event.actor.sub,
      actorEmail: event.actor.email,
      action: event.action,
      targetSub: event.targetSub,
      before: event.before,
      after: event.after,
      requestId: event.requestId,
    })
    .returning();
  return row as StaffAuditEvent;
}

export const AUDIT_PAGE_SIZE_DEFAULT = 50;
export const AUDIT_PAGE_SIZE_MAX = 200;

/** A GET form leaves untouched fields as empty strings: they mean "no filter". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), schema.optional());

/**
 * Where the previous page ended: the last event's id. Pages compare (occurred_at, id) with that event's own row, so
 * the timestamp keeps PostgreSQL's microseconds (a JavaScript Date would round them to milliseconds).
 */
const CURSOR = /^\d{1,15}$/;

/**
 * The audit log's one filter, for the audit-log page (its GET form), the member detail page (`{ targetSub }`) and
 * the API. Dates are calendar days (UTC) and both ends are included. Messages are keys of the "forms" namespace.
 */
export const AuditLogParams = z.object({
  /** The admin who acted: an e-mail address (any case) or a sub. */
  actor: optional(z.string().trim().max(254, "validation.inputError")).describe(
    "The admin: an e-mail address or a sub.",
  ),
  action: optional(z.enum(STAFF_ACTIONS, { error: "validation.selectError" })),
  targetSub: optional(z.uuid("validation.inputError")),
  from: optional(z.iso.date("validation.inputError")).describe("First day, inclusive (YYYY-MM-DD, Japan time)."),
  to: optional(z.iso.date("validation.inputError")).describe("Last day, inclusive (YYYY-MM-DD, Japan time)."),
  cursor: optional(z.string().regex(CURSOR, "validation.inputError")).describe(
    "The `nextCursor` of the previous page.",
  ),
  limit: optional(
    z.coerce
      .number()
      .int("validation.inputError")
      .min(1, "validation.inputError")
      .max(AUDIT_PAGE_SIZE_MAX, "validation.inputError"),
  ),
});
export type AuditLogFilter = z.input<typeof AuditLogParams>;

const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = z.uuid();

function actorCondition(actor: string): SQL {
  if (UUID.safeParse(actor).success) return eq(staffAuditEvents.actorSub, actor);
  return sql`lower(${staffAuditEvents.actorEmail}) = ${actor.toLowerCase()}`;
}

/**
 * One page of the log, newest first, by keyset on (occurred_at, id): each page starts where the previous one ended,
 * whatever was appended since. `nextCursor` is null on the last page.
 */
export async function listAuditEvents(
  db: Database,
  filter: AuditLogFilter,
): Promise<{ events: StaffAuditEvent[]; nextCursor: string | null }> {
  const params = AuditLogParams.parse(filter);
  const limit = params.limit ?? AUDIT_PAGE_SIZE_DEFAULT;
  const rows = await db
    .select()
    .from(staffAuditEvents)
    .where(
      and(
        params.actor ? actorCondition(params.actor) : undefined,
        params.action ? eq(staffAuditEvents.action, params.action) : undefined,
        params.targetSub ? eq(staffAuditEvents.targetSub, params.targetSub) : undefined,
        params.from ? gte(staffAuditEvents.occurredAt, tokyoDayStart(params.from)) : undefined,
        params.to ? lt(staffAuditEvents.occurredAt, new Date(tokyoDayStart(params.to).getTime() + DAY_MS)) : undefined,
        params.cursor
          ? sql`(${staffAuditEvents.occurredAt}, ${staffAuditEvents.id}) < (select e.occurred_at, e.id from ${staffAuditEvents} e where e.id = ${Number(params.cursor)})`
          : undefined,
      ),
    )
    .orderBy(desc(staffAuditEvents.occurredAt), desc(staffAuditEvents.id))
    .limit(limit + 1);
  // Only recordStaffAction writes the table, and only with STAFF_ACTIONS.
  const events = rows.slice(0, limit) as StaffAuditEvent[];
  return { events, nextCursor: rows.length > limit ? String(events.at(-1)!.id) : null };
}
