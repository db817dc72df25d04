import { afterAll, beforeAll, expect, test } from "vitest";
import { directoryReconcileRuns } from "../../../db/schema";
import { parseConfig } from "~/config.server";
import { POOL_SUMMARY_CACHE_MS, describeUserPool } from "~/domain/directory/user-pool-summary.server";
import type { StandIns } from "~/server/start-server";
import type { AppServices } from "~/services.server";
import { createAppServices } from "~/composition-root.server";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { makeTempDir } from "../../support/temp-dir";
import { useTestDatabase } from "../../support/test-database";

// GET /api/admin/user-pool's data: the stand-in's DescribeUserPool through the AWS SDK, a real database.
const temp = makeTempDir("user-pool-summary");
const database = useTestDatabase("user-pool-summary-db");
let stack: StandIns;
let services: AppServices;

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  const config = parseConfig({
    ...stack.env,
    APP_MODE: "dev",
    APP_ORIGIN: "http://localhost:3996",
    DATA_DIR: temp.dir,
  });
  services = createAppServices(config, database().db);
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  temp.remove();
});

test("Cognito is asked once per POOL_SUMMARY_CACHE_MS; the directory's freshness is read every time", async () => {
  let nowMs = Date.parse("2026-01-01T00:00:00Z");
  let describeCalls = 0;
  const counted: AppServices = {
    ...services,
    clock: { now: () => new Date(nowMs) },
    identity: {
      ...services.identity,
      poolSummary: () => {
        describeCalls++;
        return services.identity.poolSummary();
      },
    },
  };

  const first = await describeUserPool(counted);
  expect(first).toMatchObject({
    id: services.config.cognito.userPoolId,
    deviceLimit: services.config.deviceLimit,
    directory: { lastReconcile: null },
  });
  await database()
    .db.insert(directoryReconcileRuns)
    .values({ status: "finished", usersSeen: 7, finishedAt: new Date(nowMs) });

  nowMs += POOL_SUMMARY_CACHE_MS - 1;
  const cached = await describeUserPool(counted);
  expect(describeCalls).toBe(1);
  expect(cached.directory.lastReconcile).toMatchObject({ status: "finished", usersSeen: 7 });

  nowMs += 1;
  await describeUserPool(counted);
  expect(describeCalls).toBe(2);
});
