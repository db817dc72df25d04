import { asc, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberSessions, securityEvents } from "~db/schema";
import { parseConfig } from "~/config.server";
import { changePassword } from "~/domain/account/password-change.server";
import { REAUTHENTICATION_WINDOW_MS } from "~/domain/account/reauthentication.server";
import { RESOURCES } from "~/i18n/resources";
import * as dataDownload from "~/routes/member/my-data-download";
import * as dataPage from "~/routes/member/my-data";
import * as emailEdit from "~/routes/member/my-email-edit";
import * as reauthentication from "~/routes/member/my-reauthentication";
import * as devToolsLayout from "~/layouts/dev-tools-layout";
import * as sessionClock from "~/routes/dev-tools/demo";
import { pathFor } from "~/routing/route-table";
import type { Clock } from "~/services.server";
import { cookieHeader, isCleared, setCookieNamed } from "../../support/cookie-jar";
import { PRODUCTION_ENV } from "../../support/production-env";
import { routeCalls, settle } from "../../support/route-calls";
import { MEMBER_PASSWORD, memberAsSeenNow, signedInMember as newSignedInMember } from "../../support/signed-in-members";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// The password step in front of the e-mail change and the data copy, through the route modules with real services:
// PGlite (or PostgreSQL), the Cognito stand-in over HTTP, the SMTP capture. The app's clock is the test's: moving
// it is what "eleven minutes later" means to every rule that reads it.
const ORIGIN = "http://localhost:3996";
const PASSWORD = MEMBER_PASSWORD;
const MINUTE_MS = 60_000;
let current = new Date();
const clock: Clock = { now: () => current };
const moveClock = (ms: number) => (current = new Date(current.getTime() + ms));
const app = useTestServices({ label: "reauthentication", origin: ORIGIN, clock });
const calls = routeCalls(ORIGIN, () => app.services);

const signedInMember = (label: string) => newSignedInMember(app.services, label);
const asSeenNow = (member: { sessionId: string; accessToken: string }) => memberAsSeenNow(app.services, member);

async function passwordTimeOf(sessionId: string) {
  const [row] = await app.db
    .select({ at: memberSessions.passwordVerifiedAt })
    .from(memberSessions)
    .where(eq(memberSessions.id, sessionId));
  return row?.at ?? null;
}

async function mailsTo(address: string) {
  const entries = await listMailboxEntries(mailboxDirectory(app.dataDir));
  return entries.filter((entry) => entry.kind === "mail" && entry.to.includes(address));
}

type DataReply = { data: { result: { error?: Record<string, string[]>; initialValue?: Record<string, unknown> } } };

test("a password sign-in counts as the password step for 10 minutes: the e-mail change and the data copy go ahead", async () => {
  const member = await signedInMember("recent");
  expect(await passwordTimeOf(member.sessionId)).toEqual(current);
  moveClock(REAUTHENTICATION_WINDOW_MS - MINUTE_MS);
  const later = await asSeenNow(member);

  const newEmail = `recent-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const edit = calls.post(pathFor("my-email-edit", "ja"), { email: newEmail });
  const sent = (await settle(emailEdit.action(calls.args(edit, await calls.context(edit, later))))) as Response;
  expect(sent.headers.get("Location")).toBe(`${pathFor("my-email-edit", "ja")}?sent`);
  expect(await mailsTo(newEmail)).toHaveLength(1);

  const page = calls.get(pathFor("my-data", "en"));
  const shown = await dataPage.loader(calls.args(page, await calls.context(page, later)));
  expect(shown.sections[0]?.groups[0]?.find((fact) => fact.field === "sub")?.value).toBe(later.sub);

  const download = calls.post(pathFor("my-data-download", "en"), {});
  const file = (await settle(
    dataDownload.action(calls.args(download, await calls.context(download, later))),
  )) as Response;
  expect(file.status).toBe(200);
  expect(file.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
});

test("eleven minutes after the password, the e-mail change asks for it first, keeps the typed address, then goes ahead", async () => {
  const member = await signedInMember("stale");
  moveClock(11 * MINUTE_MS);
  const stale = await asSeenNow(member);
  const newEmail = `stale-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  const edit = calls.post(pathFor("my-email-edit", "ja"), { email: newEmail });
  const asked = (await settle(emailEdit.action(calls.args(edit, await calls.context(edit, stale))))) as Response;
  expect(asked.status).toBe(302);
  const step = asked.headers.get("Location")!;
  expect(step).toBe(`${pathFor("my-reauthentication", "ja")}?to=${encodeURIComponent(pathFor("my-email-edit", "ja"))}`);
  // Nothing was mailed: the change waits for the password.
  expect(await mailsTo(newEmail)).toHaveLength(0);
  const kept = cookieHeader(asked);
  expect(kept).toMatch(/^id_kept_form=/);

  // A wrong password: 400 with the message on the field, the password not sent back, the session still stale.
  const wrongPassword = "not-the-password-42";
  const wrong = calls.post(step, { password: wrongPassword }, kept);
  const refused = await settle(reauthentication.action(calls.args(wrong, await calls.context(wrong, stale))));
  expect((refused as unknown as { init: ResponseInit }).init.status).toBe(400);
  const reply = (refused as unknown as DataReply).data.result;
  expect(reply.error?.password).toEqual([RESOURCES.ja.toasts.currentPasswordMismatch]);
  expect(JSON.stringify(reply)).not.toContain(wrongPassword);
  expect((await asSeenNow(member)).passwordVerifiedAt).toEqual(stale.passwordVerifiedAt);

  // The right password: back to the form, which shows the typed address (never the password).
  const right = calls.post(step, { password: PASSWORD }, kept);
  const passed = (await settle(
    reauthentication.action(calls.args(right, await calls.context(right, stale))),
  )) as Response;
  expect(passed.status).toBe(302);
  expect(passed.headers.get("Location")).toBe(pathFor("my-email-edit", "ja"));
  expect(passed.headers.get("Set-Cookie") ?? "").not.toContain(PASSWORD);
  expect(await passwordTimeOf(member.sessionId)).toEqual(current);
  const vouched = await asSeenNow(member);

  const form = calls.get(pathFor("my-email-edit", "ja"), kept);
  const shown = await emailEdit.loader(calls.args(form, await calls.context(form, vouched)));
  expect(shown.typedEmail).toBe(newEmail);
  expect(decodeURIComponent(kept)).not.toContain(PASSWORD);

  const again = calls.post(pathFor("my-email-edit", "ja"), { email: newEmail }, kept);
  const sent = (await settle(emailEdit.action(calls.args(again, await calls.context(again, vouched))))) as Response;
  expect(sent.headers.get("Location")).toBe(`${pathFor("my-email-edit", "ja")}?sent`);
  expect(isCleared(setCookieNamed(sent, "id_kept_form") ?? "")).toBe(true);
  expect(await mailsTo(newEmail)).toHaveLength(1);
});

test("the kept address is shown only to the member who typed it, on the page it was typed on", async () => {
  const typist = await signedInMember("typist");
  moveClock(11 * MINUTE_MS);
  const edit = calls.post(pathFor("my-email-edit", "en"), { email: "typed@example.jp" });
  const stale = await asSeenNow(typist);
  const asked = (await settle(emailEdit.action(calls.args(edit, await calls.context(edit, stale))))) as Response;
  const kept = cookieHeader(asked);

  const other = await signedInMember("other");
  const form = calls.get(pathFor("my-email-edit", "en"), kept);
  expect((await emailEdit.loader(calls.args(form, await calls.context(form, other)))).typedEmail).toBeNull();
  const japanese = calls.get(pathFor("my-email-edit", "ja"), kept);
  expect((await emailEdit.loader(calls.args(japanese, await calls.context(japanese, stale)))).typedEmail).toBeNull();
  moveClock(11 * MINUTE_MS);
  const late = calls.get(pathFor("my-email-edit", "en"), kept);
  expect((await emailEdit.loader(calls.args(late, await calls.context(late, stale)))).typedEmail).toBeNull();
});

test("eleven minutes after the password, the data page and the download send the member to the password step and back to the page", async () => {
  const member = await signedInMember("stale-data");
  moveClock(11 * MINUTE_MS);
  const stale = await asSeenNow(member);
  const back = `${pathFor("my-reauthentication", "en")}?to=${encodeURIComponent(pathFor("my-data", "en"))}`;

  const page = calls.get(pathFor("my-data", "en"));
  const shown = (await settle(dataPage.loader(calls.args(page, await calls.context(page, stale))))) as Response;
  expect(shown.status).toBe(302);
  expect(shown.headers.get("Location")).toBe(back);

  const download = calls.post(pathFor("my-data-download", "en"), {});
  const file = (await settle(
    dataDownload.action(calls.args(download, await calls.context(download, stale))),
  )) as Response;
  expect(file.status).toBe(302);
  expect(file.headers.get("Location")).toBe(back);
  expect(file.headers.get("Content-Disposition")).toBeNull();

  const step = calls.post(back, { password: PASSWORD });
  const passed = (await settle(
    reauthentication.action(calls.args(step, await calls.context(step, stale))),
  )) as Response;
  expect(passed.headers.get("Location")).toBe(pathFor("my-data", "en"));
  const vouched = await asSeenNow(member);
  const again = calls.post(pathFor("my-data-download", "en"), {});
  const saved = (await settle(dataDownload.action(calls.args(again, await calls.context(again, vouched))))) as Response;
  expect(saved.status).toBe(200);
  // The password step and the download, each in the security record with this session.
  const recorded = await app.db
    .select({ kind: securityEvents.kind, sessionId: securityEvents.sessionId })
    .from(securityEvents)
    .where(eq(securityEvents.sub, member.sub))
    .orderBy(asc(securityEvents.id));
  expect(recorded).toEqual([
    { kind: "sign-in", sessionId: member.sessionId },
    { kind: "re-authenticated", sessionId: member.sessionId },
    { kind: "data-copy-downloaded", sessionId: member.sessionId },
  ]);
});

test("the password step returns only to a path of this site", async () => {
  const member = await signedInMember("return");
  for (const to of ["//evil.example/", "https://evil.example/my/data/", "/\\evil.example/", "/%2F%2Fevil.example/"]) {
    const step = calls.post(`${pathFor("my-reauthentication", "ja")}?to=${encodeURIComponent(to)}`, {
      password: PASSWORD,
    });
    const passed = (await settle(
      reauthentication.action(calls.args(step, await calls.context(step, member))),
    )) as Response;
    expect(passed.headers.get("Location")).toBe(pathFor("my-profile", "ja"));
  }
});

test("a password change renews the session's password time", async () => {
  const member = await signedInMember("password-change");
  moveClock(11 * MINUTE_MS);
  await changePassword(app.services, {
    sub: member.sub,
    email: member.email,
    sessionId: member.sessionId,
    currentPassword: PASSWORD,
    newPassword: `${PASSWORD}-changed`,
    clientIp: "127.0.0.1",
    locale: "ja",
    familyName: null,
    givenName: null,
  });
  expect(await passwordTimeOf(member.sessionId)).toEqual(current);
});

test("the dev tools' session clock moves only this session's password time back, and production has no such control", async () => {
  const member = await signedInMember("session-clock");
  const other = await signedInMember("session-clock-other");
  const production = routeCalls(ORIGIN, () => ({ ...app.services, config: parseConfig(PRODUCTION_ENV) }));
  const refused = production.post(pathFor("demo", "ja"), { minutes: "11" });
  const answer = await settle(sessionClock.action(production.args(refused, await production.context(refused, member))));
  expect((answer as unknown as { init: ResponseInit }).init.status).toBe(404);
  const page = production.get(pathFor("demo", "ja"));
  const pageContext = await production.context(page, member);
  // Page views of the dev tools are refused by their layout.
  const shown = await settle(() => devToolsLayout.loader(production.args(page, pageContext)));
  expect((shown as unknown as { init: ResponseInit }).init.status).toBe(404);
  expect(await passwordTimeOf(member.sessionId)).toEqual(current);

  const moved = calls.post(pathFor("demo", "ja"), { minutes: "11" });
  await settle(sessionClock.action(calls.args(moved, await calls.context(moved, member))));
  expect(await passwordTimeOf(member.sessionId)).toEqual(new Date(current.getTime() - 11 * MINUTE_MS));
  expect(await passwordTimeOf(other.sessionId)).toEqual(current);
  const edit = calls.post(pathFor("my-email-edit", "ja"), { email: "moved@example.jp" });
  const asked = (await settle(
    emailEdit.action(calls.args(edit, await calls.context(edit, await asSeenNow(member)))),
  )) as Response;
  expect(asked.headers.get("Location")).toMatch(/^\/my\/reauthentication\/\?to=/);
});
