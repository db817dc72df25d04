import { expect, test } from "vitest";
import { displayName, isProfileFilled } from "~/domain/account/display-name.server";

test("the e-mail is shown until both names are filled", () => {
  expect(displayName({ email: "taro@example.jp" }, "ja")).toBe("taro@example.jp");
  expect(displayName({ email: "taro@example.jp", familyName: "山田" }, "ja")).toBe("taro@example.jp");
  expect(displayName({ email: "taro@example.jp", familyName: "山田", givenName: "  " }, "en")).toBe("taro@example.jp");
  expect(isProfileFilled({ email: "x@example.jp", familyName: "山田", givenName: null })).toBe(false);
});

test("family name first in Japanese, given name first in English", () => {
  const member = { email: "taro@example.jp", familyName: "Yamada", givenName: "Taro" };
  expect(displayName(member, "ja")).toBe("Yamada Taro");
  expect(displayName(member, "en")).toBe("Taro Yamada");
  expect(isProfileFilled(member)).toBe(true);
});
