import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { rateLimitWindows } from "~db/schema";
import {
  CODE_CHECK_PER_ACCOUNT,
  CODE_CHECK_PER_IP,
  SIGN_IN_PER_ACCOUNT,
  SIGN_IN_PER_IP,
  SWEEP_GRACE_MS,
  clientNetworkOf,
  countAttempt,
  deleteEndedRateLimitWindows,
  hitRateLimit,
} from "~/domain/limits/rate-limit.server";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("rate-limits");

const MINUTE_MS = 60_000;
/** A fixed clock on a window boundary for every window length used here. */
const START = new Date("2030-01-01T00:00:00.000Z");
const at = (offsetMs: number) => new Date(START.getTime() + offsetMs);
/** A scope of this test's own, so tests (and runs against a shared PostgreSQL) never share a counter. */
const ownScope = () => `test:${crypto.randomUUID()}`;
/** The real policies' scopes are shared, so those tests take a client /64 of their own (documentation range). */
const ownNetwork = () => {
  const [a, b] = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${a!.toString(16)}:${b!.toString(16)}`;
};

test("the N+1th hit in a window is refused, with the seconds left until the window ends", async () => {
  const policy = { scope: ownScope(), limit: 3, windowMs: 15 * MINUTE_MS };
  const results = [];
  for (let hit = 0; hit < 5; hit++) {
    results.push(
      await hitRateLimit(database().db, { ...policy, subject: "member@example.jp", now: at(10 * MINUTE_MS) }),
    );
  }
  expect(results.map((result) => result.allowed)).toEqual([true, true, true, false, false]);
  expect(results[0]!.retryAfterS).toBe(0);
  expect(results[3]!.retryAfterS).toBe(5 * 60);
});

test("a new window starts a new count", async () => {
  const policy = { scope: ownScope(), limit: 2, windowMs: 15 * MINUTE_MS };
  const hit = (offsetMs: number) =>
    hitRateLimit(database().db, { ...policy, subject: "203.0.113.7", now: at(offsetMs) });
  expect((await hit(0)).allowed).toBe(true);
  expect((await hit(MINUTE_MS)).allowed).toBe(true);
  const refused = await hit(15 * MINUTE_MS - 1);
  expect(refused).toEqual({ allowed: false, retryAfterS: 1, windowStart: START });
  // The window ends on the boundary, not 15 minutes after the first hit.
  expect((await hit(15 * MINUTE_MS)).allowed).toBe(true);
  expect((await hit(29 * MINUTE_MS)).allowed).toBe(true);
  expect((await hit(29 * MINUTE_MS)).allowed).toBe(false);
});

test("twenty hits at once let exactly the limit through", async () => {
  const policy = { scope: ownScope(), limit: 5, windowMs: 15 * MINUTE_MS };
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      hitRateLimit(database().db, { ...policy, subject: "burst@example.jp", now: START }),
    ),
  );
  expect(results.filter((result) => result.allowed)).toHaveLength(5);
  const [row] = await database()
    .db.select({ count: rateLimitWindows.count })
    .from(rateLimitWindows)
    .where(sql`${rateLimitWindows.key} like ${`${policy.scope}:%`}`);
  expect(row?.count).toBe(20);
});

test("different subjects and different policies never share a count", async () => {
  const scope = ownScope();
  const policy = { scope, limit: 1, windowMs: 15 * MINUTE_MS };
  expect((await hitRateLimit(database().db, { ...policy, subject: "a@example.jp", now: START })).allowed).toBe(true);
  expect((await hitRateLimit(database().db, { ...policy, subject: "a@example.jp", now: START })).allowed).toBe(false);
  expect((await hitRateLimit(database().db, { ...policy, subject: "b@example.jp", now: START })).allowed).toBe(true);
  const otherPolicy = { ...policy, scope: ownScope() };
  expect((await hitRateLimit(database().db, { ...otherPolicy, subject: "a@example.jp", now: START })).allowed).toBe(
    true,
  );
});

test("subjects are stored hashed: no e-mail address or IP in the table", async () => {
  const scope = ownScope();
  await hitRateLimit(database().db, {
    scope,
    limit: 1,
    windowMs: MINUTE_MS,
    subject: "Private.Person@example.jp",
    now: START,
  });
  const rows = await database()
    .db.select({ key: rateLimitWindows.key })
    .from(rateLimitWindows)
    .where(sql`${rateLimitWindows.key} like ${`${scope}:%`}`);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.key).toMatch(new RegExp(`^${scope}:[A-Za-z0-9_-]{43}$`));
  expect(rows[0]!.key.toLowerCase()).not.toContain("person");
});

test("ended windows are swept a grace period after they end, current ones never", async () => {
  const policy = { scope: ownScope(), limit: 1, windowMs: MINUTE_MS };
  // The current window first: about one hit in SWEEP_EVERY_N_HITS sweeps as of its own clock, and a sweep at
  // 60 minutes would take the ended window before the test looks (a CI run saw exactly that).
  await hitRateLimit(database().db, { ...policy, subject: "current", now: at(60 * MINUTE_MS) });
  await hitRateLimit(database().db, { ...policy, subject: "ended", now: at(0) });
  const windowsLeft = async () =>
    (
      await database()
        .db.select({ windowStart: rateLimitWindows.windowStart })
        .from(rateLimitWindows)
        .where(sql`${rateLimitWindows.key} like ${`${policy.scope}:%`}`)
        .orderBy(rateLimitWindows.windowStart)
    ).map((row) => row.windowStart.toISOString());
  const endedAt = MINUTE_MS;
  await deleteEndedRateLimitWindows(database().db, at(endedAt + SWEEP_GRACE_MS));
  expect(await windowsLeft()).toEqual([at(0).toISOString(), at(60 * MINUTE_MS).toISOString()]);
  await deleteEndedRateLimitWindows(database().db, at(endedAt + SWEEP_GRACE_MS + 1));
  expect(await windowsLeft()).toEqual([at(60 * MINUTE_MS).toISOString()]);
});

test("an auth attempt counts per IP and per lower-cased account, and a refusal names the policy", async () => {
  const email = `Limit-${crypto.randomUUID().slice(0, 8)}@Example.jp`;
  const clientIp = `${ownNetwork()}::1`;
  const overrides = { CODE_CHECK_PER_ACCOUNT: 2, CODE_CHECK_PER_IP: 1_000 };
  const attempt = (address: string, ip = clientIp) =>
    countAttempt(database().db, {
      action: "codeCheck",
      subject: address,
      clientIp: ip,
      overrides,
      now: at(2 * MINUTE_MS),
    });
  expect(await attempt(email)).toEqual({ allowed: true });
  expect(await attempt(email.toLowerCase())).toEqual({ allowed: true });
  // Another IP does not help: the account's count is the same whichever network asks.
  expect(await attempt(` ${email.toUpperCase()} `, `${ownNetwork()}::1`)).toEqual({
    allowed: false,
    policy: "CODE_CHECK_PER_ACCOUNT",
    retryAfterS: 13 * 60,
  });
  expect(CODE_CHECK_PER_ACCOUNT.windowMs).toBe(15 * MINUTE_MS);
  expect(CODE_CHECK_PER_IP.limit).toBeGreaterThan(CODE_CHECK_PER_ACCOUNT.limit);
});

test("a sign-in call counts per client only: its refusals are counted per account elsewhere", async () => {
  const clientIp = `${ownNetwork()}::1`;
  const attempt = () =>
    countAttempt(database().db, { action: "signIn", clientIp, overrides: { SIGN_IN_PER_IP: 2 }, now: START });
  expect(await attempt()).toEqual({ allowed: true });
  expect(await attempt()).toEqual({ allowed: true });
  expect(await attempt()).toMatchObject({ allowed: false, policy: "SIGN_IN_PER_IP" });
  expect(SIGN_IN_PER_IP.limit).toBeGreaterThan(SIGN_IN_PER_ACCOUNT.limit);
});

test("an IP over its limit is refused before its accounts are counted", async () => {
  const network = ownNetwork();
  const overrides = { FORGOT_PASSWORD_PER_IP: 1, FORGOT_PASSWORD_PER_ACCOUNT: 1 };
  const attempt = (email: string, clientIp: string) =>
    countAttempt(database().db, { action: "forgotPassword", subject: email, clientIp, overrides, now: START });
  const email = `ip-first-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  expect((await attempt(`first-${email}`, `${network}::1`)).allowed).toBe(true);
  // Another address in the same /64 is the same client.
  expect(await attempt(email, `${network}:abcd::2`)).toMatchObject({
    allowed: false,
    policy: "FORGOT_PASSWORD_PER_IP",
  });
  // That refusal did not use up the account: from another network it still has its one request.
  expect(await attempt(email, `${ownNetwork()}::1`)).toEqual({ allowed: true });
});

test("a member action counts per member and per IP, the page's and the API's attempts on the same counters", async () => {
  const network = ownNetwork();
  const overrides = { PROFILE_UPDATE_PER_MEMBER: 2, PROFILE_UPDATE_PER_IP: 3 };
  const update = (sub: string, clientIp = `${network}::1`) =>
    countAttempt(database().db, { action: "profileUpdate", subject: sub, clientIp, overrides, now: START });
  const [member, other] = [crypto.randomUUID(), crypto.randomUUID()];
  expect(await update(member)).toEqual({ allowed: true });
  expect(await update(member, `${ownNetwork()}::1`)).toEqual({ allowed: true });
  expect(await update(member, `${ownNetwork()}::1`)).toMatchObject({
    allowed: false,
    policy: "PROFILE_UPDATE_PER_MEMBER",
  });
  // Another member is not affected by the first one's count...
  expect(await update(other)).toEqual({ allowed: true });
  // ...but the network's count holds across members: its third attempt is its last.
  expect(await update(crypto.randomUUID())).toEqual({ allowed: true });
  expect(await update(crypto.randomUUID())).toMatchObject({ allowed: false, policy: "PROFILE_UPDATE_PER_IP" });
});

test("per-IP limits count IPv4 as is and IPv6 by its /64", () => {
  expect(clientNetworkOf("203.0.113.9")).toBe("203.0.113.9");
  expect(clientNetworkOf("::ffff:203.0.113.9")).toBe("203.0.113.9");
  expect(clientNetworkOf("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
  expect(clientNetworkOf("2001:0DB8:0001:0002::1")).toBe("2001:db8:1:2::/64");
  expect(clientNetworkOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(clientNetworkOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  expect(clientNetworkOf("::1")).toBe("0:0:0:0::/64");
  expect(clientNetworkOf("")).toBe("");
});
