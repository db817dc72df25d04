import { expect, test } from "vitest";
import { formatTimeLeft } from "~/components/admin/import-progress";

const t = (key: string, values: object) => `${key} ${JSON.stringify(values)}`;

test("the import's time left reads in seconds under a minute, minutes under an hour, then hours and minutes", () => {
  expect(formatTimeLeft(0.2, t)).toBe('duration.seconds {"count":1}');
  expect(formatTimeLeft(59, t)).toBe('duration.seconds {"count":59}');
  expect(formatTimeLeft(61, t)).toBe('duration.minutes {"count":2}');
  expect(formatTimeLeft(3540, t)).toBe('duration.minutes {"count":59}');
  expect(formatTimeLeft(3599, t)).toBe('duration.hours {"hours":1,"minutes":0}');
  expect(formatTimeLeft(3600, t)).toBe('duration.hours {"hours":1,"minutes":0}');
  expect(formatTimeLeft(20_000 / 40, t)).toBe('duration.minutes {"count":9}');
  expect(formatTimeLeft(5 * 3600 + 61, t)).toBe('duration.hours {"hours":5,"minutes":2}');
});
