import { expect, test } from "vitest";
import { createRequestPacer } from "~/domain/directory/directory-reconcile.server";

/** A clock the pacer sleeps on: time moves only when it sleeps or a request takes time. */
function fakeTimer() {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test("each request starts at least 1/rate after the previous one ended, however long requests take", async () => {
  const timer = fakeTimer();
  const paced = createRequestPacer(20, timer);
  const spans: { start: number; end: number }[] = [];
  for (const durationMs of [0, 10, 120, 0, 49, 3]) {
    await paced(async () => {
      const start = timer.now();
      timer.advance(durationMs);
      spans.push({ start, end: timer.now() });
    });
  }
  expect(spans[0]!.start).toBe(0);
  for (let index = 1; index < spans.length; index++) {
    expect(spans[index]!.start - spans[index - 1]!.end).toBe(50);
  }
});

test("a request that comes late anyway is not held back, and a failed one still spaces the next", async () => {
  const timer = fakeTimer();
  const paced = createRequestPacer(5, timer);
  await paced(async () => undefined);
  timer.advance(1000);
  const lateStart = await paced(async () => timer.now());
  expect(lateStart).toBe(1000);
  await expect(
    paced(async () => {
      throw new Error("throttled");
    }),
  ).rejects.toThrow("throttled");
  expect(await paced(async () => timer.now())).toBe(1400);
});
