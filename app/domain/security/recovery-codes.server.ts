import { createHash, randomBytes } from "node:crypto";
import { and, count, eq, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { recoveryCodes } from "~db/schema";

/** How many recovery codes a member gets at a time. */
export const RECOVERY_CODE_COUNT = 10;
/** Random bytes in one code: 80 bits, written as 16 characters of Crockford's Base32 in groups of 4. */
const RECOVERY_CODE_BYTES = 10;
/** Crockford's Base32: no I, L, O or U, so a code read aloud or off paper is not misread. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** A new code as the member sees it: "k3m9-x2ab-7qpd-0tzc". */
function newRecoveryCode(): string {
  return base32(randomBytes(RECOVERY_CODE_BYTES)).replace(/(.{4})(?=.)/g, "$1-");
}

/**
 * What the member typed, in the form that was hashed: case, spaces and hyphens do not matter, and the letters
 * Crockford's Base32 leaves out read as the digits they look like (O → 0, I and L → 1).
 */
export function normalizeRecoveryCode(typed: string): string {
  return typed.normalize("NFKC").toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
}

function hashRecoveryCode(code: string): string {
  return createHash("sha256").update(normalizeRecoveryCode(code), "utf8").digest("hex");
}

/**
 * Replaces all of a member's recovery codes with RECOVERY_CODE_COUNT new ones (inside the caller's transaction) and
 * answers them: the only time they exist in clear. Each code holds 80 random bits, so its SHA-256 is all that is
 * kept and a code is found by its hash (no comparison of secrets in JavaScript).
 */
export async function replaceRecoveryCodes(tx: Database, input: { sub: string; now: Date }): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.sub, input.sub));
  await tx
    .insert(recoveryCodes)
    .values(codes.map((code) => ({ sub: input.sub, codeHash: hashRecoveryCode(code), createdAt: input.now })));
  return codes;
}

/** Deletes all of a member's recovery codes (2-step verification turned off). */
export async function deleteRecoveryCodes(tx: Database, sub: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.sub, sub));
}

/** How many of the member's recovery codes are still unused. */
export async function countRecoveryCodesLeft(db: Database, sub: string): Promise<number> {
  const [row] = await db
    .select({ left: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.sub, sub), isNull(recoveryCodes.usedAt)));
  return row?.left ?? 0;
}

/**
 * Uses up one recovery code of the member, if it is theirs and unused: one conditional update, so two requests with
 * the same code cannot both succeed. Answers whether it was.
 */
export async function claimRecoveryCode(
  db: Database,
  input: { sub: string; code: string; now: Date },
): Promise<boolean> {
  const claimed = await db
    .update(recoveryCodes)
    .set({ usedAt: input.now })
    .where(
      and(
        eq(recoveryCodes.sub, input.sub),
        eq(recoveryCodes.codeHash, hashRecoveryCode(input.code)),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return claimed.length > 0;
}

/** Gives back a claimed code whose sign-in then failed (Cognito down, wrong password): it was not used after all. */
export async function releaseRecoveryCode(db: Database, input: { sub: string; code: string; claimedAt: Date }) {
  await db
    .update(recoveryCodes)
    .set({ usedAt: null })
    .where(
      and(
        eq(recoveryCodes.sub, input.sub),
        eq(recoveryCodes.codeHash, hashRecoveryCode(input.code)),
        eq(recoveryCodes.usedAt, input.claimedAt),
      ),
    );
}
