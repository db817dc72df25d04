import { desc } from "drizzle-orm";
import { directoryReconcileRuns } from "../../db/schema";
import type { PoolSummary } from "~/integrations/cognito/identity-provider.server";
import type { AppServices } from "~/services.server";

/**
 * DescribeUserPool answers from a quota shared by the whole AWS account, and its estimate changes slowly: staff
 * reloading the pool page or a tool polling the API read it once a minute at most.
 */
export const POOL_SUMMARY_CACHE_MS = 60_000;

/** Per pool id (tests run several pools in one process); the promise is shared, so concurrent calls ask once. */
const summaries = new Map<string, { fetchedAtMs: number; summary: Promise<PoolSummary> }>();

async function cachedPoolSummary(services: Pick<AppServices, "identity" | "config" | "clock">): Promise<PoolSummary> {
  const key = services.config.cognito.userPoolId;
  const nowMs = services.clock.now().getTime();
  const cached = summaries.get(key);
  if (cached && nowMs - cached.fetchedAtMs < POOL_SUMMARY_CACHE_MS) return cached.summary;
  const summary = services.identity.poolSummary();
  summaries.set(key, { fetchedAtMs: nowMs, summary });
  // A failure is not kept: the next call asks again.
  summary.catch(() => summaries.get(key)?.summary === summary && summaries.delete(key));
  return summary;
}

/** The latest reconcile run (app/domain/member-directory.server.ts keeps the directory; the job walks the pool). */
async function latestReconcile(services: Pick<AppServices, "db">) {
  const [run] = await services.db
    .select()
    .from(directoryReconcileRuns)
    .orderBy(desc(directoryReconcileRuns.startedAt))
    .limit(1);
  if (!run) return null;
  const { added, changed, missing } = run.drift;
  const { startedAt, finishedAt, status, usersSeen } = run;
  return { startedAt, finishedAt, status, usersSeen, drift: { added, changed, missing } };
}

/** What staff see of the user pool: Cognito's description (cached), the device limit, and the directory's freshness. */
export async function describeUserPool(services: Pick<AppServices, "identity" | "config" | "clock" | "db">) {
  const [summary, lastReconcile] = await Promise.all([cachedPoolSummary(services), latestReconcile(services)]);
  return { ...summary, deviceLimit: services.config.deviceLimit, directory: { lastReconcile } };
}
