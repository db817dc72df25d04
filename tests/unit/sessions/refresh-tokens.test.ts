import { expect, test } from "vitest";
import { decryptSecret, encryptSecret } from "~/domain/sessions/refresh-tokens.server";

const OLD = "o".repeat(32);
const NEW = "n".repeat(32);

test("refresh tokens are encrypted, and open with any configured secret so secrets can rotate", () => {
  const sealed = encryptSecret("refresh-token-value", [OLD]);
  expect(sealed).not.toContain("refresh-token-value");
  expect(encryptSecret("refresh-token-value", [OLD])).not.toBe(sealed);
  expect(decryptSecret(sealed, [OLD])).toBe("refresh-token-value");
  expect(decryptSecret(sealed, [NEW, OLD])).toBe("refresh-token-value");
  expect(decryptSecret(sealed, [NEW])).toBeNull();
});

test("a tampered or malformed value does not open", () => {
  const sealed = encryptSecret("refresh-token-value", [OLD]);
  const [version, iv, body] = sealed.split(".");
  const flipped = `${version}.${iv}.${body!.slice(0, -2)}${body!.endsWith("A") ? "B" : "A"}${body!.slice(-1)}`;
  expect(decryptSecret(flipped, [OLD])).toBeNull();
  expect(decryptSecret("v2.x.y", [OLD])).toBeNull();
  expect(decryptSecret("garbage", [OLD])).toBeNull();
});
