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

/** The base64url text with one bit of its `index`-th decoded byte flipped (negative counts from the end). */
function withByteFlipped(base64url: string, index: number): string {
  const bytes = Buffer.from(base64url, "base64url");
  const position = index < 0 ? bytes.length + index : index;
  if (position < 0 || position >= bytes.length) throw new Error(`No byte ${index} in ${bytes.length}`);
  // XOR changes the byte whatever it held; going through bytes (not text) avoids the final character's unused bits.
  bytes[position]! ^= 0x01;
  return bytes.toString("base64url");
}

test("a tampered or malformed value does not open", () => {
  const sealed = encryptSecret("refresh-token-value", [OLD]);
  const [version, iv, body] = sealed.split(".") as [string, string, string];
  const tampered = {
    iv: `${version}.${withByteFlipped(iv, 0)}.${body}`,
    "first ciphertext byte": `${version}.${iv}.${withByteFlipped(body, 0)}`,
    "last tag byte": `${version}.${iv}.${withByteFlipped(body, -1)}`,
  };
  for (const [part, value] of Object.entries(tampered)) {
    expect(value, part).not.toBe(sealed);
    expect(decryptSecret(value, [OLD]), part).toBeNull();
  }
  expect(decryptSecret(`${version}.${iv}.${body.slice(0, -4)}`, [OLD]), "truncated tag").toBeNull();
  expect(decryptSecret("v2.x.y", [OLD])).toBeNull();
  expect(decryptSecret("garbage", [OLD])).toBeNull();
});
