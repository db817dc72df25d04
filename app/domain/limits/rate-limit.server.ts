import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { rateLimitWindows } from "~db/schema";
import { logger } from "~/integrations/logger.server";
import { countRateLimitRefusal } from "~/integrations/metrics.server";

/**
 * Rate limits counted in PostgreSQL, so they hold across every instance. Fixed
 * windows: each hit is one atomic upsert-increment of the (key, window) row, so concurrent hits can never let more
 * than `limit` through, whichever instance serves them. A burst at a window's edge may see up to twice the limit
 * in one window's length; that is the price of one row and one statement per hit.
 */
export interface RateLimitPolicy {
  /** Names what is counted and is part of every row's key, so no two policies share a counter. */
  scope: string;
  /** Hits allowed per window; the next one is refused until the window ends. */
  limit: number;
  windowMs: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/*
 * Per account: stops guessing one member's password or code, and mail-bombing one address. The subject is the
 * lower-cased e-mail whether or not it has an ID, so a refusal says nothing about the account.
 * Per IP: slows one host spraying many accounts. Generous, because offices, universities and mobile carriers put
 * many members behind one address (and the e2e suite signs in ~100 times from 127.0.0.1 in a run).
 */
/**
 * Every sign-in call from one client, whatever its outcome (passwords, codes, passkeys; members and staff): it keeps
 * one host from spending Cognito's sign-in quota, which the whole AWS account shares.
 */
export const SIGN_IN_PER_IP = { scope: "sign-in:ip", limit: 300, windowMs: 15 * MINUTE_MS } satisfies RateLimitPolicy;
/*
 * Sign-in per account counts refusals only (app/domain/limits/sign-in-failures.server.ts): a success never counts,
 * so a member who signs in often is never refused. Each door (the member sign-in, the staff sign-in, the passkey
 * button) has counters of its own with these limits. A refusal in a browser that signed in to the account before
 * counts against that browser alone; anyone else's against the account from that client and against the account,
 * so strangers cannot lock the member out of a browser they use.
 */
/**
 * Refused sign-ins of one address in browsers it never signed in with, from anywhere: bounds guessing spread over
 * many hosts to under 1,000 a day (app/domain/README.md, "Stronger passwords").
 */
export const SIGN_IN_PER_ACCOUNT = {
  scope: "sign-in:account",
  limit: 10,
  windowMs: 15 * MINUTE_MS,
} satisfies RateLimitPolicy;
/**
 * The same from one client: half the account's, so that one host alone cannot close the account to every other
 * unknown browser, the member's new one included.
 */
export const SIGN_IN_PER_ACCOUNT_AND_IP = {
  scope: "sign-in:account-ip",
  limit: 5,
  windowMs: 15 * MINUTE_MS,
} satisfies RateLimitPolicy;
/** Refused sign-ins in a browser that signed in to the account before: the member's own typos. */
export const SIGN_IN_PER_KNOWN_BROWSER = {
  scope: "sign-in:known-browser",
  limit: 10,
  windowMs: 15 * MINUTE_MS,
} satisfies RateLimitPolicy;
/** Each sign-up of an address may mail it a code. */
export const SIGN_UP_PER_ACCOUNT = { scope: "sign-up:account", limit: 5, windowMs: HOUR_MS } satisfies RateLimitPolicy;
export const SIGN_UP_PER_IP = { scope: "sign-up:ip", limit: 100, windowMs: HOUR_MS } satisfies RateLimitPolicy;
/** Sign-up confirmation codes and password-reset codes: six digits, so guesses must stay few. */
export const CODE_CHECK_PER_ACCOUNT = {
  scope: "code-check:account",
  limit: 10,
  windowMs: 15 * MINUTE_MS,
} satisfies RateLimitPolicy;
export const CODE_CHECK_PER_IP = {
  scope: "code-check:ip",
  limit: 100,
  windowMs: 15 * MINUTE_MS,
} satisfies RateLimitPolicy;
/** "Send the code again" on the sign-up code step: every resend is a mail. */
export const CODE_RESEND_PER_ACCOUNT = {
  scope: "code-resend:account",
  limit: 5,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const CODE_RESEND_PER_IP = { scope: "code-resend:ip", limit: 100, windowMs: HOUR_MS } satisfies RateLimitPolicy;
/** Password-reset requests, "send the code again" included: each one mails a code. */
export const FORGOT_PASSWORD_PER_ACCOUNT = {
  scope: "forgot-password:account",
  limit: 5,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const FORGOT_PASSWORD_PER_IP = {
  scope: "forgot-password:ip",
  limit: 100,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
/**
 * The API's address checks (POST /api/user-availability, /api/email-updates) per member: each answer says whether
 * an address has an ID, so a stolen token must not turn the API into a directory of members.
 */
export const EMAIL_CHECK_PER_MEMBER = {
  scope: "email-check:member",
  limit: 30,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
/** The same per client: a host holding many tokens must not sum their allowances into a directory either. */
export const EMAIL_CHECK_PER_IP = { scope: "email-check:ip", limit: 300, windowMs: HOUR_MS } satisfies RateLimitPolicy;

/*
 * What signed-in members do that calls Cognito or sends mail, pages and API alike. Cognito's
 * request quotas belong to the whole AWS account, and sign-in shares them: one free account looping over an edit
 * must not be able to throttle every member's sign-in. Per member: far above what a person or a sibling service
 * acting for one member does. Per IP: sibling services call the API from their own servers, so one address speaks
 * for many members; these stay generous, yet one host stays far below the account's quotas (tens per second).
 */
/** Profile edits (page) and the API's user registration: each one is an AdminUpdateUserAttributes. */
export const PROFILE_UPDATE_PER_MEMBER = {
  scope: "profile-update:member",
  limit: 20,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const PROFILE_UPDATE_PER_IP = {
  scope: "profile-update:ip",
  limit: 600,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
/**
 * E-mail change requests (page and API): each one mails a link to any address the member typed, and its answer
 * says whether that address has an ID. A member changes address a few times in their life: five an hour is ample.
 */
export const EMAIL_CHANGE_PER_MEMBER = {
  scope: "email-change:member",
  limit: 5,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const EMAIL_CHANGE_PER_IP = {
  scope: "email-change:ip",
  limit: 100,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
/** POST /api/refresh-user: an AdminGetUser each; a sibling refreshes a member on its sign-in or after an edit. */
export const MEMBER_REFRESH_PER_MEMBER = {
  scope: "member-refresh:member",
  limit: 60,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const MEMBER_REFRESH_PER_IP = {
  scope: "member-refresh:ip",
  limit: 3000,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
/**
 * POST /api/user-devices/{id}: each one checks a refresh token with Cognito, from the sign-in quota itself. A
 * member registers one device per sign-in; thirty an hour covers a family of browsers and retries.
 */
export const DEVICE_REGISTRATION_PER_MEMBER = {
  scope: "device-registration:member",
  limit: 30,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const DEVICE_REGISTRATION_PER_IP = {
  scope: "device-registration:ip",
  limit: 1000,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;

/**
 * Staff actions on members (refresh, e-mail change, ending sessions, disable, enable) and the CSV downloads (each
 * holds a database connection while it streams), pages and the admin API alike, per admin: each action calls
 * Cognito, and the e-mail change mails two addresses. 120 in ten minutes is far beyond a
 * person's pace at the admin screens, yet stops a stolen admin token or a runaway script well below Cognito's quotas.
 */
export const STAFF_ACTION_PER_ADMIN = {
  scope: "staff-action:admin",
  limit: 120,
  windowMs: 10 * MINUTE_MS,
} satisfies RateLimitPolicy;
/** The same per client: staff work from a few office addresses, so this only bounds a host holding many tokens. */
export const STAFF_ACTION_PER_IP = {
  scope: "staff-action:ip",
  limit: 600,
  windowMs: 10 * MINUTE_MS,
} satisfies RateLimitPolicy;

/**
 * The member's copy of their data (the JSON download): each one reads every table about the member, and may ask
 * Cognito once. A person needs one now and then; ten an hour allows retries and stops a loop.
 */
export const DATA_COPY_PER_MEMBER = {
  scope: "data-copy:member",
  limit: 10,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const DATA_COPY_PER_IP = { scope: "data-copy:ip", limit: 300, windowMs: HOUR_MS } satisfies RateLimitPolicy;

/**
 * Passkey management on /my/security/ (the creation options, adding, renaming, deleting), per member: each but the
 * rename calls Cognito, and each add or delete mails the member. A person adds a passkey per device now and then;
 * thirty posts an hour leaves room for retries and stops a loop from mailing the member or spending Cognito's quota.
 */
export const PASSKEY_CHANGE_PER_MEMBER = {
  scope: "passkey-change:member",
  limit: 30,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const PASSKEY_CHANGE_PER_IP = {
  scope: "passkey-change:ip",
  limit: 300,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;

/**
 * Setting up and turning off the authenticator app on /my/security/authenticator/, per member: each set-up asks
 * Cognito for a new secret (AssociateSoftwareToken) and each turning off deletes one (AdminDeleteSoftwareToken) and
 * mails the member. Ten an hour covers a phone that will not scan; a loop stops there.
 */
export const TWO_STEP_CHANGE_PER_MEMBER = {
  scope: "two-step-change:member",
  limit: 10,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;
export const TWO_STEP_CHANGE_PER_IP = {
  scope: "two-step-change:ip",
  limit: 300,
  windowMs: HOUR_MS,
} satisfies RateLimitPolicy;

export const RATE_LIMIT_POLICIES = {
  SIGN_IN_PER_ACCOUNT,
  SIGN_IN_PER_ACCOUNT_AND_IP,
  SIGN_IN_PER_KNOWN_BROWSER,
  SIGN_IN_PER_IP,
  SIGN_UP_PER_ACCOUNT,
  SIGN_UP_PER_IP,
  CODE_CHECK_PER_ACCOUNT,
  CODE_CHECK_PER_IP,
  CODE_RESEND_PER_ACCOUNT,
  CODE_RESEND_PER_IP,
  FORGOT_PASSWORD_PER_ACCOUNT,
  FORGOT_PASSWORD_PER_IP,
  EMAIL_CHECK_PER_MEMBER,
  EMAIL_CHECK_PER_IP,
  PROFILE_UPDATE_PER_MEMBER,
  PROFILE_UPDATE_PER_IP,
  EMAIL_CHANGE_PER_MEMBER,
  EMAIL_CHANGE_PER_IP,
  MEMBER_REFRESH_PER_MEMBER,
  MEMBER_REFRESH_PER_IP,
  DEVICE_REGISTRATION_PER_MEMBER,
  DEVICE_REGISTRATION_PER_IP,
  STAFF_ACTION_PER_ADMIN,
  STAFF_ACTION_PER_IP,
  DATA_COPY_PER_MEMBER,
  DATA_COPY_PER_IP,
  PASSKEY_CHANGE_PER_MEMBER,
  PASSKEY_CHANGE_PER_IP,
  TWO_STEP_CHANGE_PER_MEMBER,
  TWO_STEP_CHANGE_PER_IP,
} as const;

export type RateLimitPolicyName = keyof typeof RATE_LIMIT_POLICIES;

/** Limits set by configuration (RATE_LIMIT_<POLICY>), replacing the defaults above; windows stay as named. */
export type RateLimitOverrides = Partial<Record<RateLimitPolicyName, number>>;

/**
 * The actions that are limited, each per client IP and, but for sign-in, per subject: the account's e-mail address
 * for the auth actions (there is no member yet), the member's sub for what a signed-in member does. Sign-in is
 * counted per client here; its refusals are counted per account by sign-in-failures.server.ts.
 */
export type LimitedAction =
  | "signIn"
  | "signUp"
  | "codeCheck"
  | "codeResend"
  | "forgotPassword"
  | "emailCheck"
  | "profileUpdate"
  | "emailChange"
  | "memberRefresh"
  | "deviceRegistration"
  | "staffAction"
  | "dataCopy"
  | "passkeyChange"
  | "twoStepChange";

const ACTION_POLICIES: Record<LimitedAction, { perIp: RateLimitPolicyName; perSubject?: RateLimitPolicyName }> = {
  signIn: { perIp: "SIGN_IN_PER_IP" },
  signUp: { perIp: "SIGN_UP_PER_IP", perSubject: "SIGN_UP_PER_ACCOUNT" },
  codeCheck: { perIp: "CODE_CHECK_PER_IP", perSubject: "CODE_CHECK_PER_ACCOUNT" },
  codeResend: { perIp: "CODE_RESEND_PER_IP", perSubject: "CODE_RESEND_PER_ACCOUNT" },
  forgotPassword: { perIp: "FORGOT_PASSWORD_PER_IP", perSubject: "FORGOT_PASSWORD_PER_ACCOUNT" },
  emailCheck: { perIp: "EMAIL_CHECK_PER_IP", perSubject: "EMAIL_CHECK_PER_MEMBER" },
  profileUpdate: { perIp: "PROFILE_UPDATE_PER_IP", perSubject: "PROFILE_UPDATE_PER_MEMBER" },
  emailChange: { perIp: "EMAIL_CHANGE_PER_IP", perSubject: "EMAIL_CHANGE_PER_MEMBER" },
  memberRefresh: { perIp: "MEMBER_REFRESH_PER_IP", perSubject: "MEMBER_REFRESH_PER_MEMBER" },
  deviceRegistration: { perIp: "DEVICE_REGISTRATION_PER_IP", perSubject: "DEVICE_REGISTRATION_PER_MEMBER" },
  staffAction: { perIp: "STAFF_ACTION_PER_IP", perSubject: "STAFF_ACTION_PER_ADMIN" },
  dataCopy: { perIp: "DATA_COPY_PER_IP", perSubject: "DATA_COPY_PER_MEMBER" },
  passkeyChange: { perIp: "PASSKEY_CHANGE_PER_IP", perSubject: "PASSKEY_CHANGE_PER_MEMBER" },
  twoStepChange: { perIp: "TWO_STEP_CHANGE_PER_IP", perSubject: "TWO_STEP_CHANGE_PER_MEMBER" },
};

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window that refused this hit ends; 0 when allowed. */
  retryAfterS: number;
  /** The window the hit was counted in, for takeBackRateLimitHit. */
  windowStart: Date;
}

/**
 * Roughly one hit in this many also deletes ended windows: cleaning costs one indexed delete now and then,
 * with no scheduler, and no row outlives its window by long on a busy server (an idle one has few rows anyway).
 */
export const SWEEP_EVERY_N_HITS = 100;
/**
 * Instances' clocks differ a little: a window is swept only this long after it ended, so an instance whose clock
 * lags never finds its current window gone and starts counting it again from zero.
 */
export const SWEEP_GRACE_MS = MINUTE_MS;

/** The row key: the policy's scope and a sha256 of the subject, so e-mails and IPs are not stored in clear. */
function rateLimitKey(scope: string, subject: string): string {
  return `${scope}:${createHash("sha256").update(subject).digest("base64url")}`;
}

/**
 * Counts one hit of `subject` against a limit and says whether it is allowed. Every hit counts, refused ones
 * too; the count starts again at the next window.
 */
export async function hitRateLimit(
  db: Database,
  input: RateLimitPolicy & { subject: string; now?: Date },
): Promise<RateLimitResult> {
  const nowMs = (input.now ?? new Date()).getTime();
  const windowStartMs = Math.floor(nowMs / input.windowMs) * input.windowMs;
  const windowEndMs = windowStartMs + input.windowMs;
  const [row] = await db
    .insert(rateLimitWindows)
    .values({
      key: rateLimitKey(input.scope, input.subject),
      windowStart: new Date(windowStartMs),
      expiresAt: new Date(windowEndMs),
      count: 1,
    })
    .onConflictDoUpdate({
      target: [rateLimitWindows.key, rateLimitWindows.windowStart],
      set: { count: sql`${rateLimitWindows.count} + 1` },
    })
    .returning({ count: rateLimitWindows.count });
  if (Math.random() * SWEEP_EVERY_N_HITS < 1) {
    // Housekeeping must never cost the member their request.
    await deleteEndedRateLimitWindows(db, new Date(nowMs)).catch((error: unknown) =>
      logger.warn({ err: error }, "could not sweep ended rate-limit windows"),
    );
  }
  const allowed = row!.count <= input.limit;
  return {
    allowed,
    retryAfterS: allowed ? 0 : Math.ceil((windowEndMs - nowMs) / 1000),
    windowStart: new Date(windowStartMs),
  };
}

/**
 * Takes one hit back from the window it was counted in: for counters of outcomes (refused sign-ins), where a hit
 * is taken before the outcome is known, so that concurrent attempts can never pass the limit, and given back when it
 * turns out not to count. A window already swept has nothing to give back.
 */
export async function takeBackRateLimitHit(
  db: Database,
  input: { scope: string; subject: string; windowStart: Date },
): Promise<void> {
  await db
    .update(rateLimitWindows)
    .set({ count: sql`${rateLimitWindows.count} - 1` })
    .where(
      and(
        eq(rateLimitWindows.key, rateLimitKey(input.scope, input.subject)),
        eq(rateLimitWindows.windowStart, input.windowStart),
        gt(rateLimitWindows.count, 0),
      ),
    );
}

/** Deletes windows that ended more than SWEEP_GRACE_MS ago; returns how many. */
export async function deleteEndedRateLimitWindows(db: Database, now = new Date()): Promise<number> {
  const deleted = await db
    .delete(rateLimitWindows)
    .where(lt(rateLimitWindows.expiresAt, new Date(now.getTime() - SWEEP_GRACE_MS)))
    .returning({ key: rateLimitWindows.key });
  return deleted.length;
}

export type AttemptResult = { allowed: true } | { allowed: false; policy: RateLimitPolicyName; retryAfterS: number };

/** An attempt at a limited action and whom it names: sign-in's per-account counting is its refusals' (above). */
export type LimitedAttempt = { action: "signIn" } | { action: Exclude<LimitedAction, "signIn">; subject: string };

/**
 * Counts one attempt at an action per client network and per subject (an account's e-mail, lower-cased, or a
 * member's sub), before anything is asked of Cognito or the mailer. The IP is counted first and a refusal there
 * stops the count: a flood from one host is turned away without also using up the accounts it names.
 */
export async function countAttempt(
  db: Database,
  input: LimitedAttempt & { clientIp: string; overrides?: RateLimitOverrides; now?: Date },
): Promise<AttemptResult> {
  const { perIp, perSubject } = ACTION_POLICIES[input.action];
  const checks: [RateLimitPolicyName, string][] = [[perIp, clientNetworkOf(input.clientIp)]];
  if (perSubject && "subject" in input) checks.push([perSubject, input.subject.trim().toLowerCase()]);
  for (const [name, subject] of checks) {
    const result = await hitPolicy(db, { name, subject, overrides: input.overrides, now: input.now });
    if (!result.allowed) return { allowed: false, policy: name, retryAfterS: result.retryAfterS };
  }
  return { allowed: true };
}

/** One hit of a named policy at its configured limit; a refusal is counted in the metrics by the policy's name. */
export async function hitPolicy(
  db: Database,
  input: {
    name: RateLimitPolicyName;
    subject: string;
    overrides?: RateLimitOverrides | undefined;
    now?: Date | undefined;
  },
): Promise<RateLimitResult> {
  const policy = RATE_LIMIT_POLICIES[input.name];
  const limit = input.overrides?.[input.name] ?? policy.limit;
  const result = await hitRateLimit(db, { ...policy, limit, subject: input.subject, now: input.now });
  if (!result.allowed) countRateLimitRefusal(input.name);
  return result;
}

/**
 * What a per-IP limit counts: an IPv4 address as it is, an IPv6 address by its /64. One subscriber is usually
 * given a whole /64, so counting single IPv6 addresses would let one client rotate through billions of them.
 */
export function clientNetworkOf(ip: string): string {
  const address = ip.replace(/%.*$/, "");
  const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mappedIpv4) return mappedIpv4[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail] = address.split("::");
  const groupsOf = (part: string | undefined) =>
    // An embedded dotted IPv4 tail (64:ff9b::192.0.2.1) fills two groups.
    (part ? part.split(":") : []).flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]));
  const before = groupsOf(head);
  const after = groupsOf(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - before.length - after.length).fill("0");
  const prefix = [...before, ...zeros, ...after].slice(0, 4).map((group) => parseInt(group, 16).toString(16));
  return `${prefix.join(":")}::/64`;
}
