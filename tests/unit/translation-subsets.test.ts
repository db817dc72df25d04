import { expect, test } from "vitest";
import { pickKeys } from "~/i18n/translations.server";
import { translate } from "~/i18n/use-translation";
import signUpJa from "../../locales/ja/sign-up.json";

test("a namespace's subset keeps the asked texts and subtrees where lookups find them, and nothing else", () => {
  const picked = pickKeys(signUpJa, ["title", "options.occupation", "account"]);
  expect(Object.keys(picked).sort()).toEqual(["account", "options", "title"]);
  expect(Object.keys(picked.options as object)).toEqual(["occupation"]);
  expect(translate({ signUp: picked }, "signUp", "options.occupation.student")).toBe(
    signUpJa.options.occupation.student,
  );
  expect(translate({ signUp: picked }, "signUp", "account.familyName")).toBe(signUpJa.account.familyName);
  // Left out: the key comes back as is, as for any unknown key.
  expect(translate({ signUp: picked }, "signUp", "credentials.submit")).toBe("credentials.submit");
});

test("a key the namespace does not have is left out rather than sent as undefined", () => {
  expect(pickKeys(signUpJa, ["noSuchKey", "options.noSuchList"])).toEqual({});
});
