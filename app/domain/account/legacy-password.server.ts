import bcrypt from "bcryptjs";
import { DomainError } from "../domain-error.server";
import { NewPasswordSchema } from "../forms/field-schemas";

/**
 * Hashes above this bcrypt cost are refused at import: each step doubles the work, and at 13 one compare holds
 * this process's only thread for about a second (bcryptjs is plain JavaScript).
 */
export const MAX_LEGACY_BCRYPT_COST = 12;

/** Compares running at once in one process; the others wait, so a flood of legacy sign-ins cannot pin the CPU. */
export const MAX_CONCURRENT_BCRYPT_COMPARES = 2;

/** Past this many waiting, a sign-in that needs a compare is refused like a throttled one, rather than queued. */
export const MAX_WAITING_BCRYPT_COMPARES = 64;

/**
 * Compared against when the address has no legacy hash, so that "no legacy account" takes as long as "legacy
 * account, wrong password". The hash of a random, forgotten password at cost 10, the cost the old system's export
 * uses; if an export comes with another cost, make this hash at that cost. Fixed, so no request pays for making it.
 */
const DUMMY_BCRYPT_HASH = "$2b$10$ASBxRy/ct8cc/ZBepCtwsu5264jmcq76l9H80r95xz7E7eBKeQnuu";

/** The cost factor of a bcrypt hash ("$2b$10$…" → 10). */
export function bcryptCostOf(hash: string): number {
  return Number(/^\$2[aby]\$(\d{2})\$/.exec(hash)?.[1] ?? Number.NaN);
}

let running = 0;
const waiting: (() => void)[] = [];
let comparesRun = 0;

/** Runs `work` once one of the MAX_CONCURRENT_BCRYPT_COMPARES slots is free. */
async function inCompareSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT_BCRYPT_COMPARES) running += 1;
  else if (waiting.length >= MAX_WAITING_BCRYPT_COMPARES) throw new DomainError("signInThrottled");
  // A finished compare hands its slot straight to the first in line, so `running` stays the same.
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** How much bcrypt work this process has done and has under way (for operations, and for tests). */
export function legacyPasswordCheckStats() {
  return { comparesRun, running, waiting: waiting.length };
}

/**
 * Whether `password` matches the legacy hash. Exactly one bcrypt compare runs whether or not there is a hash (a
 * dummy one without), in one of the few slots. A hash above MAX_LEGACY_BCRYPT_COST (imported before the cap)
 * never matches: it costs the dummy's time instead of its own.
 */
export async function checkLegacyPassword(password: string, hash: string | null): Promise<boolean> {
  const usable = hash !== null && bcryptCostOf(hash) <= MAX_LEGACY_BCRYPT_COST;
  const matches = await inCompareSlot(() => {
    comparesRun += 1;
    return bcrypt.compare(password, usable ? hash : DUMMY_BCRYPT_HASH);
  });
  return usable && matches;
}

/**
 * Whether Cognito will take the password: the app's own rules, which the pool's policy equals (docs/deployment.md,
 * the Cognito deployment contract), and Cognito's pattern for passwords, which refuses white space at either end
 * (API_AdminSetUserPassword).
 */
export function meetsPoolPasswordPolicy(password: string): boolean {
  return NewPasswordSchema.safeParse(password).success && /^\S(.*\S)?$/su.test(password);
}

/**
 * The cost of the verifier kept for a new password Cognito could not confirm (pending-cognito-changes.server.ts): the
 * old system's, well under MAX_LEGACY_BCRYPT_COST, so making or checking one holds a compare slot as briefly as a
 * legacy sign-in does.
 */
export const PASSWORD_VERIFIER_BCRYPT_COST = 10;

/** A bcrypt verifier of a new password, made in one of the compare slots. */
export function hashPasswordVerifier(password: string): Promise<string> {
  return inCompareSlot(() => bcrypt.hash(password, PASSWORD_VERIFIER_BCRYPT_COST));
}

/** Whether `password` is the one a verifier was made of (one compare, in a slot). */
export function matchesPasswordVerifier(password: string, verifier: string): Promise<boolean> {
  return inCompareSlot(() => {
    comparesRun += 1;
    return bcrypt.compare(password, verifier);
  });
}
