import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * When each scheduled job (purge, reconcile, factors) last started on any instance. Every instance keeps its own timer; a
 * tick runs the job only if no instance started it in the last nine tenths of an interval (app/domain/jobs/scheduled-turn.server.ts),
 * so a cluster runs each job once per interval, not once per instance.
 */
export const scheduledJobTurns = pgTable("scheduled_job_turns", {
  job: text().primaryKey(),
  startedAt: timestamp({ withTimezone: true }).notNull(),
  /** Where a job that works through the members a batch a run left off (the second-factor reconcile's last sub). */
  cursor: text(),
});
