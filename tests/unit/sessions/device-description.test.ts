import { expect, test } from "vitest";
import { describeDevice } from "~/domain/sessions/device-description.server";

test("devices are described by operating system and browser", () => {
  expect(
    describeDevice(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    ),
  ).toEqual({ deviceName: "iOS 17.4", browser: "Safari 17" });
  expect(
    describeDevice(
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    ).browser,
  ).toBe("Chrome 126");
  expect(describeDevice(null)).toEqual({ deviceName: "Unknown", browser: "Unknown" });
});
