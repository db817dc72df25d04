import { expect, test } from "vitest";
import { ProfileFormSchema, withStoredPrefecture } from "~/domain/forms/profile-schemas";
import { AccountInfoFormSchema } from "~/domain/forms/sign-up-schemas";
import { JAPANESE_PREFECTURES, jisCodeOf, listedPrefectureOf } from "~/domain/forms/prefectures";
import { RESOURCES } from "~/i18n/resources";

const PROFILE = {
  familyName: "山田",
  givenName: "太郎",
  birthYear: "1980",
  occupation: "architect",
  organization: "山田設計",
  preferredLanguage: "ja",
};

function issuesOf(value: Record<string, unknown>) {
  const result = ProfileFormSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => [issue.path.join("."), issue.message]);
}

test("the 47 prefectures are in JIS X 0401 order, and the Japanese names shown are the names stored", () => {
  expect(JAPANESE_PREFECTURES).toHaveLength(47);
  expect(jisCodeOf("北海道")).toBe("01");
  expect(jisCodeOf("東京都")).toBe("13");
  expect(jisCodeOf("沖縄県")).toBe("47");
  const names = (locale: "ja" | "en") =>
    JAPANESE_PREFECTURES.map(
      (name) => (RESOURCES[locale].prefectures.names as Record<string, string>)[jisCodeOf(name)],
    );
  expect(names("ja")).toEqual([...JAPANESE_PREFECTURES]);
  expect(names("en")).toContain("Tokyo");
  expect(names("en").filter(Boolean)).toHaveLength(47);
  expect(Object.keys(RESOURCES.en.prefectures.names)).toHaveLength(47);
});

test("a stored free-text prefecture is found in the list with or without its 都/府/県, and nothing else is", () => {
  expect(listedPrefectureOf("東京都")).toBe("東京都");
  expect(listedPrefectureOf(" 東京 ")).toBe("東京都");
  expect(listedPrefectureOf("大阪")).toBe("大阪府");
  expect(listedPrefectureOf("北海道")).toBe("北海道");
  expect(listedPrefectureOf("北海")).toBeUndefined();
  expect(listedPrefectureOf("Tokyo")).toBeUndefined();
  expect(listedPrefectureOf("")).toBeUndefined();
  expect(listedPrefectureOf(null)).toBeUndefined();
});

test("Japan takes the prefecture from the list and ignores the free text; elsewhere the reverse", () => {
  const japan = ProfileFormSchema.parse({ ...PROFILE, country: "JP", prefecture: "京都府", region: "Kyoto" });
  expect(withStoredPrefecture(japan)).toEqual({ ...PROFILE, birthYear: 1980, country: "JP", prefecture: "京都府" });
  const abroad = ProfileFormSchema.parse({ ...PROFILE, country: "FR", prefecture: "京都府", region: "Île-de-France" });
  expect(withStoredPrefecture(abroad)).toMatchObject({ country: "FR", prefecture: "Île-de-France" });
  expect(withStoredPrefecture(abroad)).not.toHaveProperty("region");
});

test("the control the country calls for is required, and the list takes only the 47 names", () => {
  expect(issuesOf({ ...PROFILE, country: "JP", region: "Tokyo" })).toEqual([
    ["prefecture", "validation.selectRequired"],
  ]);
  expect(issuesOf({ ...PROFILE, country: "US", prefecture: "東京都" })).toEqual([["region", "validation.required"]]);
  expect(issuesOf({ ...PROFILE, country: "JP", prefecture: "Tokyo" })).toEqual([
    ["prefecture", "validation.selectError"],
  ]);
  expect(issuesOf({ ...PROFILE, country: "US", region: "x".repeat(51) })).toEqual([["region", "validation.tooLong"]]);
  // Sign-up's step has the same rule beside the questionnaire's.
  const account = AccountInfoFormSchema.safeParse({ ...PROFILE, country: "JP", q2: ["price"], q3: ["web"] });
  expect(account.error?.issues.map((issue) => issue.path.join("."))).toEqual(["prefecture"]);
});
