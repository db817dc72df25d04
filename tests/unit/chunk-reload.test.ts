import { expect, test } from "vitest";
import { CHUNK_RELOAD_GUARD_MS, shouldReloadAfterChunkFailure } from "~/chunk-reload";

test("a chunk failure reloads at most once a minute", () => {
  expect(CHUNK_RELOAD_GUARD_MS).toBe(60_000);
  expect(shouldReloadAfterChunkFailure(1_000_000, null)).toBe(true);
  expect(shouldReloadAfterChunkFailure(1_000_000, 1_000_000 - 59_999)).toBe(false);
  expect(shouldReloadAfterChunkFailure(1_000_000, 1_000_000 - 60_000)).toBe(true);
});
