import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { recognizeService, themeForService } from "~/domain/sessions/service-recognition.server";

const { services } = parseConfig({
  SERVICE_HOSTS_DATA: "data.example.jp",
  SERVICE_HOSTS_COMPE: "compe.example.jp",
  SERVICE_HOSTS_ONLINE: "online.example.jp,ONLINE2.example.jp",
  SERVICE_HOSTS_SHOP: "shop.example.jp",
});
const OWN = "https://id.example.jp";

test.each([
  ["https://data.example.jp/articles/1?x=y", "data"],
  ["https://compe.example.jp/", "compe"],
  ["https://online2.example.jp/watch", "online"],
  ["https://shop.example.jp/cart", "shop"],
  ["https://id.example.jp/my/profile/", "id"],
  ["http://localhost:4000/", "local"],
  ["http://127.0.0.1:4000/", "local"],
])("referrer %s is recognised as %s", (referrer, expected) => {
  expect(recognizeService(referrer, OWN, services)).toBe(expected);
});

test.each([
  [null],
  ["not a url"],
  ["https://evil.example.com/"],
  // Lookalike hosts must not match by suffix or prefix.
  ["https://data.example.jp.evil.com/"],
  ["https://xdata.example.jp/"],
])("referrer %s is not recognised", (referrer) => {
  expect(recognizeService(referrer, OWN, services)).toBeNull();
});

test("local and unknown referrers use the account service theme", () => {
  expect(themeForService("local")).toBe("id");
  expect(themeForService(null)).toBe("id");
  expect(themeForService("compe")).toBe("compe");
});
