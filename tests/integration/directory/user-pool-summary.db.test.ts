import { expect, test } from "vitest";
import { directoryReconcileRuns } from "~db/schema";
import { POOL_SUMMARY_CACHE_MS, describeUserPool } from "~/domain/directory/user-pool-summary.server";
import type { AppServices } from "~/services.server";
import { useTestServices } from "../../support/test-services";

// GET /api/admin/user-pool's data: the stand-in's DescribeUserPool through the AWS SDK, a real database.
const app = useTestServices({ label: "user-pool-summary", origin: "http://localhost:3996" });

test("Cognito is asked once per POOL_SUMMARY_CACHE_MS; the directory's freshness is read every time", async () => {
  let nowMs = Date.parse("2026-01-01T00:00:00Z");
  let describeCalls = 0;
  const counted: AppServices = {
    ...app.services,
    clock: { now: () => new Date(nowMs) },
    identity: {
      ...app.services.identity,
      poolSummary: () => {
        describeCalls++;
        return app.services.identity.poolSummary();
      },
    },
  };

  const first = await describeUserPool(counted);
  expect(first).toMatchObject({
    id: app.services.config.cognito.userPoolId,
    deviceLimit: app.services.config.deviceLimit,
    directory: { lastReconcile: null },
  });
  await app.db.insert(directoryReconcileRuns).values({ status: "finished", usersSeen: 7, finishedAt: new Date(nowMs) });

  nowMs += POOL_SUMMARY_CACHE_MS - 1;
  const cached = await describeUserPool(counted);
  expect(describeCalls).toBe(1);
  expect(cached.directory.lastReconcile).toMatchObject({ status: "finished", usersSeen: 7 });

  nowMs += 1;
  await describeUserPool(counted);
  expect(describeCalls).toBe(2);
});
