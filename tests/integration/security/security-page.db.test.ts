import { and, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { securityEvents, staffAuditEvents } from "~db/schema";
import { signIn } from "~/domain/account/sign-in.server";
import {
  SECURITY_ACTIVITY_DAYS,
  type ActivityEntry,
  listSecurityActivity,
} from "~/domain/security/security-activity.server";
import { recordSecurityEvents } from "~/domain/security/security-record.server";
import { findLiveSession } from "~/domain/sessions/page-sessions.server";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { memberContext, requestInfoContext, servicesContext } from "~/router-context.server";
import * as securityPage from "~/routes/member/my-security";
import { pathFor } from "~/routing/route-table";
import { useTestServices } from "../../support/test-services";

/**
 * /my/security/: the activity's keyset pages, and its actions through the route module on the real parts (the
 * Cognito stand-in over HTTP, PGlite or PostgreSQL in CI).
 */
const ORIGIN = "http://localhost:3997";
const PASSWORD = "correct-horse-battery";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";
const app = useTestServices({ label: "security-page", origin: ORIGIN });
const DAY_MS = 24 * 60 * 60 * 1000;

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  return { email, sub: (await app.services.identity.getUser(email)).sub };
}

/** A real sign-in of one browser; the member as the session check would put them in the context. */
async function signedInBrowser(member: { email: string; sub: string }): Promise<SignedInMember> {
  const result = await signIn(app.services, {
    email: member.email,
    password: PASSWORD,
    deviceKey: crypto.randomUUID(),
    userAgent: FIREFOX,
    clientIp: "198.51.100.20",
    locale: "ja",
  });
  if (result.kind !== "active") throw new Error(`expected an active sign-in, got ${result.kind}`);
  return {
    ...member,
    familyName: null,
    givenName: null,
    profile: null,
    groups: [],
    sessionId: result.sessionId,
    accessToken: result.accessToken,
    passwordVerifiedAt: null,
  };
}

async function contextFor(request: Request, member: SignedInMember) {
  const context = new RouterContextProvider();
  context.set(servicesContext, app.services);
  context.set(requestInfoContext, { requestId: "security-page", nonce: "", clientIp: "192.0.2.10" });
  context.set(memberContext, member);
  await i18nextMiddleware({ request, context, params: {}, unstable_pattern: "" } as never, async () => new Response());
  return context;
}

async function postAs(member: SignedInMember, fields: Record<string, string>): Promise<Response> {
  const request = new Request(`${ORIGIN}${pathFor("my-security", "ja")}`, {
    method: "POST",
    body: new URLSearchParams(fields),
  });
  const context = await contextFor(request, member);
  const answer: unknown = await securityPage
    .action({ request, url: new URL(request.url), context, params: {} } as never)
    .catch((thrown: unknown) => thrown);
  return answer as Response;
}

async function loadAs(member: SignedInMember, locale: "ja" | "en" = "ja") {
  const request = new Request(`${ORIGIN}${pathFor("my-security", locale)}`);
  const context = await contextFor(request, member);
  return securityPage.loader({ request, url: new URL(request.url), context, params: {} } as never);
}

const reportedOf = (sub: string) =>
  app.db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, sub), eq(securityEvents.kind, "session-reported")));

test("the page lists both browsers' sign-ins, the live ones marked, with 'This wasn't me' on the other browser only", async () => {
  const member = await createMember("page-list");
  const first = await signedInBrowser(member);
  const second = await signedInBrowser(member);
  const data = await loadAs(second, "en");
  const signIns = data.rows.filter((row) => row.what.startsWith("Logged in"));
  expect(signIns).toHaveLength(2);
  expect(signIns[0]).toMatchObject({
    current: true,
    live: true,
    reportableSessionId: null,
    ipAddress: "198.51.100.20",
  });
  expect(signIns[1]).toMatchObject({ current: false, live: true, reportableSessionId: first.sessionId });
  expect(signIns[1]).toMatchObject({ device: "Firefox 140 on Windows 10" });
  expect(data.rows[0]?.when).toMatch(/\d/);
});

test("a failed sign-in is stamped with its latest attempt and sorted by it; a row says only what the record knows", async () => {
  const member = await createMember("page-refused");
  const browser = await signedInBrowser(member);
  const hourStart = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
  const minutesAfter = (minutes: number) => new Date(hourStart.getTime() + minutes * 60_000);
  await app.db.insert(securityEvents).values([
    // Three wrong passwords in the hour, the last at 50 minutes past: the row's occurred_at is the hour's start.
    {
      sub: member.sub,
      kind: "sign-in-refused",
      occurredAt: hourStart,
      lastOccurredAt: minutesAfter(50),
      attempts: 3,
      ipAddress: "203.0.113.9",
    },
    { sub: member.sub, kind: "sign-out", occurredAt: minutesAfter(20) },
    { sub: member.sub, kind: "sign-in-refused", occurredAt: minutesAfter(-60), ipAddress: "203.0.113.9" },
  ]);
  const data = await loadAs(browser, "en");
  expect(data.rows.map((row) => row.what)).toEqual([
    "Logged in from a new browser",
    expect.stringMatching(/^Login failed: wrong password \(3 attempts since .+\)$/),
    "Logged out",
    "Login failed: wrong password",
  ]);
  expect(data.rows[1]).toMatchObject({ at: minutesAfter(50).toISOString(), device: null, ipAddress: "203.0.113.9" });
  expect(data.rows[2]).toMatchObject({ at: minutesAfter(20).toISOString(), device: null, ipAddress: null });
  const [ja] = (await loadAs(browser, "ja")).rows.slice(1);
  expect(ja?.what).toMatch(/^ログイン失敗（パスワードの誤り、.+以降3回）$/);
});

test("'How you log in' says when the password last changed, or that the record holds no change", async () => {
  const member = await createMember("page-password");
  const browser = await signedInBrowser(member);
  expect(await loadAs(browser, "en")).toMatchObject({
    passwordChangedAt: null,
    twoStep: { enabled: false },
    passkeys: [],
  });
  await recordSecurityEvents(app.db, [
    { sub: member.sub, kind: "password-reset", occurredAt: new Date("2026-03-01T01:00:00Z") },
    { sub: member.sub, kind: "password-changed", occurredAt: new Date("2026-05-04T06:30:00Z") },
    { sub: member.sub, kind: "email-changed", occurredAt: new Date("2026-06-01T00:00:00Z") },
  ]);
  // Japan time, as the rest of the page.
  expect((await loadAs(browser, "ja")).passwordChangedAt).toMatch(/2026.*5.*4.*15:30/);
});

test("'This wasn't me' ends that browser's session at once, records it and leads to the password change", async () => {
  const member = await createMember("page-not-me");
  const other = await signedInBrowser(member);
  const mine = await signedInBrowser(member);
  const answer = await postAs(mine, { intent: "not-me", device: other.sessionId });
  expect(answer.status).toBe(302);
  expect(answer.headers.get("Location")).toBe(pathFor("my-password-edit", "ja"));
  expect(await findLiveSession(app.db, other.sessionId)).toBeNull();
  expect(await findLiveSession(app.db, mine.sessionId)).not.toBeNull();
  expect((await reportedOf(member.sub)).map((event) => event.sessionId)).toEqual([other.sessionId]);
});

test("an attacker's 'This wasn't me' with another member's session id does nothing to them", async () => {
  const victim = await signedInBrowser(await createMember("page-victim"));
  const attacker = await signedInBrowser(await createMember("page-attacker"));
  const answer = await postAs(attacker, { intent: "not-me", device: victim.sessionId });
  expect(answer.status).toBe(302);
  expect(answer.headers.get("Location")).toBe(pathFor("my-security", "ja"));
  expect(await findLiveSession(app.db, victim.sessionId)).not.toBeNull();
  expect(await reportedOf(victim.sub)).toEqual([]);
  expect(await reportedOf(attacker.sub)).toEqual([]);
  // Nor this browser's own session, nor a made-up id.
  await postAs(attacker, { intent: "not-me", device: attacker.sessionId });
  await postAs(attacker, { intent: "not-me", device: "not-a-session" });
  expect(await findLiveSession(app.db, attacker.sessionId)).not.toBeNull();
});

test("'Log out of every device but this browser' ends every other session and keeps this one", async () => {
  const member = await createMember("page-others");
  const a = await signedInBrowser(member);
  const b = await signedInBrowser(member);
  const mine = await signedInBrowser(member);
  const answer = await postAs(mine, { intent: "sign-out-others" });
  expect(answer.headers.get("Location")).toBe(pathFor("my-security", "ja"));
  expect(await findLiveSession(app.db, a.sessionId)).toBeNull();
  expect(await findLiveSession(app.db, b.sessionId)).toBeNull();
  expect(await findLiveSession(app.db, mine.sessionId)).not.toBeNull();
});

test("keyset pages walk the last 90 days of the record and the staff actions once each, newest first", async () => {
  const sub = crypto.randomUUID();
  const now = new Date("2026-11-21T03:00:00Z");
  const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
  // 45 events, every third sharing its time with a staff action (ties cross the two sources), and one too old.
  await recordSecurityEvents(
    app.db,
    Array.from({ length: 45 }, (_, index) => ({ sub, kind: "sign-out" as const, occurredAt: minutesAgo(index) })),
  );
  await recordSecurityEvents(app.db, [
    { sub, kind: "sign-out", occurredAt: new Date(now.getTime() - (SECURITY_ACTIVITY_DAYS + 1) * DAY_MS) },
  ]);
  for (let index = 0; index < 45; index += 3) {
    await app.db.insert(staffAuditEvents).values({
      occurredAt: minutesAgo(index),
      actorSub: crypto.randomUUID(),
      actorEmail: "staff@example.jp",
      action: "user.refresh",
      targetSub: sub,
      requestId: "keyset",
    });
  }

  const seen: ActivityEntry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await listSecurityActivity(app.db, {
      sub,
      currentSessionId: "",
      cursor,
      now,
      pageSize: 20,
    });
    seen.push(...page.entries);
    cursor = page.olderCursor;
    pages++;
  } while (cursor && pages < 10);

  expect(pages).toBe(3);
  expect(seen).toHaveLength(60);
  const keys = seen.map((entry) => `${entry.source}-${entry.id}`);
  expect(new Set(keys).size).toBe(60);
  const times = seen.map((entry) => entry.occurredAt.getTime());
  expect(times).toEqual([...times].sort((a, b) => b - a));
  // At a shared time the member's own event comes first, then the staff action.
  expect(seen.slice(0, 3).map((entry) => entry.source)).toEqual(["member", "staff", "member"]);
  // Anything that is not our cursor shows the first page.
  const first = await listSecurityActivity(app.db, { sub, currentSessionId: "", cursor: "bogus!", now });
  expect(first.entries[0]).toEqual(seen[0]);
});
