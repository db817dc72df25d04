import type { PoolSummary } from "~/integrations/cognito/identity-provider.server";
import type { AppServices } from "~/services.server";
import { latestReconcileReport } from "./directory-reconcile.server";

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

/** What staff see of the user pool: Cognito's description (cached), the device limit, and the directory's freshness. */
export async function describeUserPool(services: Pick<AppServices, "identity" | "config" | "clock" | "db">) {
  const [summary, lastReconcile] = await Promise.all([cachedPoolSummary(services), latestReconcileReport(services.db)]);
  return { ...summary, deviceLimit: services.config.deviceLimit, directory: { lastReconcile } };
}
