import { sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { scheduledJobTurns } from "~db/schema";

/** The share of an interval after a start within which no other instance's tick starts the job again. */
const TURN_SHARE = 0.9;

/**
 * Whether this instance's tick of a scheduled job is the cluster's turn: true, recording the start, when no instance
 * started the job within the last nine tenths of an interval; false otherwise. Every instance's timer ticks once an
 * interval at its own offset, so the job runs once an interval however many instances there are, and when the
 * instance that ran it stops, another's next tick takes over. The tenth spared absorbs timers that fire a little
 * late. One statement (an upsert that writes only when the last start is old enough), so two instances that tick
 * together cannot both win; on the database's clock, so the instances' clocks need not agree.
 */
export async function claimScheduledTurn(
  db: Database,
  job: "purge" | "reconcile" | "factors",
  intervalMs: number,
): Promise<boolean> {
  const claimed = await db
    .insert(scheduledJobTurns)
    .values({ job, startedAt: sql`now()` })
    .onConflictDoUpdate({
      target: scheduledJobTurns.job,
      set: { startedAt: sql`now()` },
      setWhere: sql`${scheduledJobTurns.startedAt} <= now() - make_interval(secs => ${(intervalMs * TURN_SHARE) / 1000}::double precision)`,
    })
    .returning({ job: scheduledJobTurns.job });
  return claimed.length > 0;
}
