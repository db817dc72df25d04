import bcrypt from "bcryptjs";
import { expect, test } from "vitest";
import {
  MAX_CONCURRENT_BCRYPT_COMPARES,
  MAX_LEGACY_BCRYPT_COST,
  MAX_WAITING_BCRYPT_COMPARES,
  checkLegacyPassword,
  legacyPasswordCheckStats,
  meetsPoolPasswordPolicy,
} from "~/domain/account/legacy-password.server";
import { DomainError } from "~/domain/domain-error.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";

const HASH = bcrypt.hashSync("old-password-2019", 4);

test("the right password matches, a wrong one does not, and no hash never matches", async () => {
  expect(await checkLegacyPassword("old-password-2019", HASH)).toBe(true);
  expect(await checkLegacyPassword("wrong", HASH)).toBe(false);
  expect(await checkLegacyPassword("old-password-2019", null)).toBe(false);
});

test("without a legacy hash a dummy compare runs all the same", async () => {
  const before = legacyPasswordCheckStats().comparesRun;
  await checkLegacyPassword("anything", null);
  expect(legacyPasswordCheckStats().comparesRun).toBe(before + 1);
});

test("a hash above the cost cap never matches, and costs a compare at the dummy's cost instead of its own", async () => {
  // The right password under a cost-31 header: compared for real it would run for days.
  const costly = HASH.replace("$04$", "$31$");
  expect(MAX_LEGACY_BCRYPT_COST).toBeLessThan(31);
  expect(await checkLegacyPassword("old-password-2019", costly)).toBe(false);
});

test("at most MAX_CONCURRENT_BCRYPT_COMPARES run at once; the rest wait, and past the queue's size are refused", async () => {
  const total = MAX_CONCURRENT_BCRYPT_COMPARES + MAX_WAITING_BCRYPT_COMPARES;
  const admitted = Array.from({ length: total }, () => checkLegacyPassword("wrong", HASH));
  expect(legacyPasswordCheckStats()).toMatchObject({
    running: MAX_CONCURRENT_BCRYPT_COMPARES,
    waiting: MAX_WAITING_BCRYPT_COMPARES,
  });
  const refused = await checkLegacyPassword("wrong", HASH).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(DomainError);
  expect(messageKeyOf(domainErrorOf(refused))).toBe("toasts:loginAttemptLimitExceeded");
  expect(await Promise.all(admitted)).toEqual(Array.from({ length: total }, () => false));
  expect(legacyPasswordCheckStats()).toMatchObject({ running: 0, waiting: 0 });
});

test("the pool's policy: at least 8 characters, no white space at either end", () => {
  expect(meetsPoolPasswordPolicy("eight-8!")).toBe(true);
  expect(meetsPoolPasswordPolicy("seven-7")).toBe(false);
  expect(meetsPoolPasswordPolicy(" leading-space")).toBe(false);
  expect(meetsPoolPasswordPolicy("trailing-space ")).toBe(false);
  expect(meetsPoolPasswordPolicy("inner space ok")).toBe(true);
});
