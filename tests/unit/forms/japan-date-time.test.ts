import { expect, test } from "vitest";
import { RedeliverSinceSchema, toJapanDateTimeLocal } from "~/domain/forms/staff-schemas";

const since = (value: string) =>
  RedeliverSinceSchema.safeParse({ intent: "redeliver-since", service: "data", since: value });

test("a datetime-local value is Japan time, seconds optional, and reads back as the input shows it", () => {
  expect(since("2026-12-03T09:30").data?.since).toEqual(new Date("2026-12-03T00:30:00Z"));
  expect(since("2026-12-03T09:30:15").data?.since).toEqual(new Date("2026-12-03T00:30:15Z"));
  expect(toJapanDateTimeLocal(new Date("2026-12-02T15:05:59Z"))).toBe("2026-12-03T00:05");
});

test("a time the calendar or the clock lacks is refused with the field's message, not rolled over", () => {
  for (const value of ["2026-02-30T10:00", "2026-13-01T10:00", "2026-12-03T24:00", "2026-12-03 10:00", "yesterday"]) {
    expect(
      since(value).error?.issues.map((issue) => issue.message),
      value,
    ).toEqual(["adminEvents:errors.dateTime"]);
  }
  expect(since("").error?.issues.map((issue) => issue.message)).toEqual(["validation.required"]);
});
