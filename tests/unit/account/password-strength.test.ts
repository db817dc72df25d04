import { expect, test } from "vitest";
import { personalWords, refuseWeakPassword } from "~/domain/account/password-strength.server";
import { DomainError } from "~/domain/domain-error.server";

const TARO = { email: "taro.yamada85@example.co.jp", familyName: "Yamada", givenName: "Taro" };
const HANAKO = { email: "h.suzuki@example.jp", familyName: "鈴木", givenName: "花子" };

/** The refusal's code, or "accepted". */
async function verdict(password: string, owner: Parameters<typeof refuseWeakPassword>[1] = TARO) {
  try {
    await refuseWeakPassword(password, owner);
    return "accepted";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

test("the words a password must not be made of come from the address's parts and the names", () => {
  expect(personalWords(TARO)).toEqual([
    "taro.yamada85@example.co.jp",
    "taro.yamada85",
    "taro",
    "yamada",
    "example",
    // "co" is too short to be looked for, "85" too; the names as typed, folded.
  ]);
  expect(personalWords(HANAKO)).toEqual(["h.suzuki@example.jp", "h.suzuki", "suzuki", "example", "鈴木", "花子"]);
});

test("common and breached passwords and their usual variants are refused as common", async () => {
  for (const password of ["password1234", "Password1234!", "P@ssw0rd", "12345678", "qwertyuiop", "iloveyou123"]) {
    expect(await verdict(password), password).toBe("passwordTooCommon");
  }
});

test("common Japanese words and names in romaji are refused as common", async () => {
  expect(await verdict("sakura2024")).toBe("passwordTooCommon");
  expect(await verdict("tanaka1985")).toBe("passwordTooCommon");
});

test("a password made of the member's address is refused as personal, in whole, in part or with a year", async () => {
  for (const password of [
    "taro.yamada85@example.co.jp",
    "taro.yamada85",
    "taroyamada2024",
    "example2024!",
    "Yamada.Taro1985",
  ]) {
    expect(await verdict(password), password).toBe("passwordFromPersonalDetails");
  }
});

test("a password made of the member's name as typed (kanji) is refused as personal", async () => {
  expect(await verdict("鈴木花子1234", HANAKO)).toBe("passwordFromPersonalDetails");
  // The same password is someone else's ordinary kanji, not theirs.
  expect(await verdict("鈴木花子1234", TARO)).toBe("accepted");
  // Disguised in l33t, the estimate still finds them.
  expect(await verdict("t4r0y4m4d4")).toBe("passwordFromPersonalDetails");
});

test("a password weak for anyone is called common even when the member's address or name is in it", async () => {
  // Surnames in romaji are in the Japanese dictionary: "suzuki1234" is weak whoever chooses it.
  expect(await verdict("suzuki1234", HANAKO)).toBe("passwordTooCommon");
  expect(await verdict("password1234", { email: "password-change-1a2b@example.jp" })).toBe("passwordTooCommon");
});

test("a name the dictionaries do not know counts only from the member's profile", async () => {
  const owner = { email: "zq@example.jp", familyName: "Quaxwoldt", givenName: "Zebediah" };
  expect(await verdict("quaxwoldtzebediah75", owner)).toBe("passwordFromPersonalDetails");
  expect(await verdict("quaxwoldtzebediah75", { email: owner.email })).toBe("accepted");
});

test("the name counts only with its owner: a strong-looking password of another member's name passes", async () => {
  expect(await verdict("yamadataro-kyoto", HANAKO)).toBe("accepted");
  expect(await verdict("yamadataro-kyoto", TARO)).toBe("passwordFromPersonalDetails");
});

test("a passphrase of unrelated words is accepted, even with the member's name in it", async () => {
  expect(await verdict("kumo no ue de neko ga odoru")).toBe("accepted");
  expect(await verdict("correct horse battery staple")).toBe("accepted");
  expect(await verdict("yamada kumo no ue de neko ga odoru")).toBe("accepted");
});

test("a random 8-character password is accepted, and so are long ones, judged by their first 32", async () => {
  expect(await verdict("Ziv7qp!e")).toBe("accepted");
  const long = "midori no tokei ga hashiru yoru, kumo to sakana ga hanashi o suru";
  expect(long.length).toBeGreaterThan(64);
  expect(await verdict(long)).toBe("accepted");
  expect(await verdict(`${long} ${"x".repeat(180)}`)).toBe("accepted");
});

test("the address and names compare after NFKC folding, so full-width letters are no way round", async () => {
  expect(await verdict("ＹＡＭＡＤＡｔａｒｏ２０２４")).toBe("passwordFromPersonalDetails");
});
