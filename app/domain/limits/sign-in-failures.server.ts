import { and, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory } from "~db/schema";
import { type DomainErrorCode, toDomainError } from "../domain-error.server";
import { hashDeviceKey, isKnownBrowser } from "../security/security-record.server";
import {
  type RateLimitOverrides,
  type RateLimitPolicyName,
  RATE_LIMIT_POLICIES,
  clientNetworkOf,
  countAttempt,
  hitPolicy,
  takeBackRateLimitHit,
} from "./rate-limit.server";

/**
 * Sign-in limits that stop attackers, not members (docs/security.md, "Rate limits"). Every sign-in call counts per
 * client (SIGN_IN_PER_IP, Cognito's shared quota); per account only refusals count, in budgets that strangers cannot
 * spend for the member:
 *
 * - a browser that signed in to the account before (its signed `id_device` key has a sign-in or sign-up of the
 *   member in the security record, isKnownBrowser) has SIGN_IN_PER_KNOWN_BROWSER of its own;
 * - any other client counts against the account from its network (SIGN_IN_PER_ACCOUNT_AND_IP) and against the
 *   account (SIGN_IN_PER_ACCOUNT), by the lower-cased address typed, whether or not it is a member's, so that the
 *   answer is the same for every address.
 *
 * Each door has counters of its own: the member sign-in (its password, and the password typed again on signed-in
 * pages), the staff sign-in (its own app client, and its passkey step), and the passkey button, which is a factor
 * of its own that strangers' wrong passwords must not close.
 *
 * A refusal is counted before Cognito is asked and taken back once the outcome is not a refusal: counting after
 * the answer would let a burst of concurrent guesses all pass before the first was counted.
 */
export type SignInDoor = "member" | "staff" | "passkey";

/** The outcomes that count as refusals: wrong, unknown or unconfirmed credentials (which read the same). */
const REFUSAL_CODES: ReadonlySet<DomainErrorCode> = new Set([
  "invalidCredentials",
  "userNotFound",
  "userNotConfirmed",
  "currentPasswordMismatch",
  "passkeyRefused",
]);

/** Whether a sign-in's failure is a refusal of its credentials, which counts against the failure budgets. */
export function isCredentialRefusal(error: unknown): boolean {
  const refused = toDomainError(error);
  return refused !== null && REFUSAL_CODES.has(refused.code);
}

export interface SignInAttempt {
  door: SignInDoor;
  /** The address typed (or the signed-in member's). */
  email: string;
  /** The browser's device key from our signed cookie; null when it has none (or for an API call). */
  deviceKey: string | null;
  clientIp: string;
}

interface CountedHit {
  scope: string;
  subject: string;
  windowStart: Date;
}

/** A refusal counted ahead; `settle` keeps it when the attempt was refused and gives it back otherwise. */
export type SignInReservation =
  { allowed: true; hits: CountedHit[] } | { allowed: false; policy: RateLimitPolicyName; retryAfterS: number };

/** The subs of the present directory rows of an address (no Cognito call): at most one, but for a stale row. */
async function subsOfAddress(db: Database, emailKey: string): Promise<string[]> {
  const rows = await db
    .select({ sub: memberDirectory.sub })
    .from(memberDirectory)
    .where(
      and(sql`${memberDirectory.emailKey} collate "C" = ${emailKey}`, isNull(memberDirectory.missingFromCognitoAt)),
    )
    .limit(2);
  return rows.map((row) => row.sub);
}

/** The member the browser signed in to before under this address, or null: a stranger to the account. */
async function knownMemberOf(db: Database, emailKey: string, deviceKey: string | null): Promise<string | null> {
  if (!deviceKey) return null;
  const deviceKeyHash = hashDeviceKey(deviceKey);
  for (const sub of await subsOfAddress(db, emailKey)) {
    if (await isKnownBrowser(db, sub, deviceKeyHash)) return sub;
  }
  return null;
}

/**
 * Counts one sign-in call for the client and reserves one refusal in the budgets of the browser's standing with the
 * account, before Cognito is asked. Refused: nothing stays counted in the budgets (a refused attempt is no guess),
 * and Cognito must not be asked.
 */
export async function reserveSignInAttempt(
  db: Database,
  input: SignInAttempt & { overrides?: RateLimitOverrides | undefined; now?: Date },
): Promise<SignInReservation> {
  const { overrides, now } = input;
  const perClient = await countAttempt(db, { action: "signIn", clientIp: input.clientIp, overrides, now });
  if (!perClient.allowed) return perClient;
  const emailKey = input.email.trim().toLowerCase();
  const knownSub = await knownMemberOf(db, emailKey, input.deviceKey);
  const budgets: [RateLimitPolicyName, string][] = knownSub
    ? [["SIGN_IN_PER_KNOWN_BROWSER", `${input.door}:${knownSub}:${hashDeviceKey(input.deviceKey!)}`]]
    : [
        ["SIGN_IN_PER_ACCOUNT_AND_IP", `${input.door}:${emailKey}:${clientNetworkOf(input.clientIp)}`],
        ["SIGN_IN_PER_ACCOUNT", `${input.door}:${emailKey}`],
      ];
  const hits: CountedHit[] = [];
  for (const [name, subject] of budgets) {
    const result = await hitPolicy(db, { name, subject, overrides, now });
    hits.push({ scope: RATE_LIMIT_POLICIES[name].scope, subject, windowStart: result.windowStart });
    if (!result.allowed) {
      await takeBack(db, hits);
      return { allowed: false, policy: name, retryAfterS: result.retryAfterS };
    }
  }
  return { allowed: true, hits };
}

/** The attempt's outcome is known: a refusal stays counted, anything else is given back. */
export async function settleSignInAttempt(
  db: Database,
  reservation: Extract<SignInReservation, { allowed: true }>,
  outcome: { refused: boolean },
): Promise<void> {
  if (!outcome.refused) await takeBack(db, reservation.hits);
}

async function takeBack(db: Database, hits: CountedHit[]): Promise<void> {
  for (const hit of hits) await takeBackRateLimitHit(db, hit);
}
