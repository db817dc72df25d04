import { expect, test } from "vitest";
import { scheduledJobTurns } from "~db/schema";
import { claimScheduledTurn } from "~/domain/jobs/scheduled-turn.server";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("scheduled-turn", { ownDatabase: true });
const INTERVAL_MS = 2_000;

test("of ticks within nine tenths of an interval only the first is the cluster's turn, also when they come together", async () => {
  const { db } = database();
  await db.delete(scheduledJobTurns);
  // Ten instances tick at once: one wins.
  const together = await Promise.all(Array.from({ length: 10 }, () => claimScheduledTurn(db, "purge", INTERVAL_MS)));
  expect(together.filter(Boolean)).toHaveLength(1);
  expect(await claimScheduledTurn(db, "purge", INTERVAL_MS)).toBe(false);
  // Each job has its own turns.
  expect(await claimScheduledTurn(db, "reconcile", INTERVAL_MS)).toBe(true);
  // An interval later the next tick runs again.
  await expect.poll(() => claimScheduledTurn(db, "purge", INTERVAL_MS), { interval: 200 }).toBe(true);
  expect(await claimScheduledTurn(db, "purge", INTERVAL_MS)).toBe(false);
});
