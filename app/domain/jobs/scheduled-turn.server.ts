import { sql } from "drizzle-orm";
import type { Database } from "../../../db/client.server";
import { scheduledJobTurns } from "../../../db/schema";

/**
 * Whether this instance's tick of a scheduled job is the cluster's turn: true, recording the start, when no instance
 * started the job in the last half interval; false otherwise. Every instance's timer ticks once an interval at its
 * own offset, so of the ticks within any half interval only the first runs: the job runs once an interval however
 * many instances there are. One statement (an upsert that writes only when the last start is old enough), so two
 * instances that tick together cannot both win; on the database's clock, so the instances' clocks need not agree.
 */
export async function claimScheduledTurn(
  db: Database,
  job: "purge" | "reconcile",
  intervalMs: number,
): Promise<boolean> {
  const claimed = await db
    .insert(scheduledJobTurns)
    .values({ job, startedAt: sql`now()` })
    .onConflictDoUpdate({
      target: scheduledJobTurns.job,
      set: { startedAt: sql`now()` },
      setWhere: sql`${scheduledJobTurns.startedAt} <= now() - make_interval(secs => ${intervalMs / 2000}::double precision)`,
    })
    .returning({ job: scheduledJobTurns.job });
  return claimed.length > 0;
}
