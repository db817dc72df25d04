import { and, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { mailOutbox, memberDirectory, memberPasskeys, securityEvents } from "~db/schema";
import { countPasskeys } from "~/domain/account/passkeys.server";
import { REAUTHENTICATION_WINDOW_MS } from "~/domain/account/reauthentication.server";
import { sendDueMail } from "~/domain/mail/mail-outbox.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import * as signInPage from "~/routes/default/auth-sign-in";
import * as securityPage from "~/routes/member/my-security";
import { pathFor } from "~/routing/route-table";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import type { Clock } from "~/services.server";
import { cookieHeader, pairOf, setCookieNamed } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { MEMBER_PASSWORD, memberAsSeenNow, signInMember } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { getRequestCounts, resetRequestCounts } from "../../support/stand-ins/stand-in/harness-client";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// Passkeys through the route modules on the real parts: the Cognito stand-in over HTTP (which checks every WebAuthn
// ceremony with @simplewebauthn/server), PGlite or PostgreSQL, the SMTP capture. A software authenticator stands in
// for the browser's navigator.credentials; the origin is localhost's, the pool's relying party.
const ORIGIN = "http://localhost:3995";
const PASSWORD = MEMBER_PASSWORD;
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";
const MINUTE_MS = 60_000;
let current = new Date();
const clock: Clock = { now: () => current };
const moveClock = (ms: number) => (current = new Date(current.getTime() + ms));
/** Low enough for a test to reach, high enough for every other test's posts of one member. */
const PASSKEY_CHANGE_LIMIT = 12;
const app = useTestServices({
  label: "passkeys",
  origin: ORIGIN,
  clock,
  env: { RATE_LIMIT_PASSKEY_CHANGE_PER_MEMBER: String(PASSKEY_CHANGE_LIMIT) },
  // It sends the outbox's mail.
  ownDatabase: true,
});
const calls = routeCalls(ORIGIN, () => app.services);

const endpoint = () => app.stack.env.COGNITO_ENDPOINT!;

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "en" } });
  return { email, sub: (await app.services.identity.getUser(email)).sub };
}

const signedInMember = (member: { email: string }) =>
  signInMember(app.services, member.email, { userAgent: FIREFOX, clientIp: "192.0.2.20", locale: "en" });
const asSeenNow = (member: { sessionId: string; accessToken: string }) => memberAsSeenNow(app.services, member);

/** A post of /my/security/'s passkey forms, as the browser (Firefox on Windows) sends it. */
async function postPasskeyForm(member: SignedInMember, fields: Record<string, string>, locale: "ja" | "en" = "en") {
  const request = calls.post(pathFor("my-security", locale), fields);
  request.headers.set("User-Agent", FIREFOX);
  return settle(securityPage.action(calls.args(request, await calls.context(request, member))));
}

/** "Add a passkey": the options, the software authenticator's answer, the form post of its JSON. */
async function addPasskey(member: SignedInMember, passkey: SoftwarePasskey) {
  const answer = (await postPasskeyForm(member, { intent: "passkey-options" })) as {
    data: { passkeyCreationOptions: Parameters<SoftwarePasskey["create"]>[0] };
  };
  const credential = passkey.create(answer.data.passkeyCreationOptions);
  return (await postPasskeyForm(member, { intent: "passkey-add", credential: JSON.stringify(credential) })) as Response;
}

async function passkeyRows(sub: string) {
  return app.db.select().from(memberPasskeys).where(eq(memberPasskeys.sub, sub));
}

async function eventsOf(sub: string, kind: "passkey-added" | "passkey-removed") {
  return app.db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, sub), eq(securityEvents.kind, kind)));
}

async function mailsTo(address: string) {
  await sendDueMail({ ...app.services, mailTexts: i18nextOutsideRequests, links: securityMailLinksFor(ORIGIN) });
  const entries = await listMailboxEntries(mailboxDirectory(app.dataDir));
  return entries.filter((entry) => entry.kind === "mail" && entry.to.includes(address));
}

/** The sign-in form's two passkey posts, with the cookie the first one sets. */
async function passkeySignIn(email: string, passkey: SoftwarePasskey, locale: "ja" | "en" = "en") {
  const path = `${pathFor("auth-sign-in", locale)}?to=my-profile`;
  // The button posts the whole sign-in form: the password field comes along, empty.
  const start = calls.post(path, { intent: "passkey-options", email, password: "" });
  const started = (await settle(signInPage.action(calls.args(start, await calls.context(start, null))))) as {
    data: { passkeyRequestOptions?: Parameters<SoftwarePasskey["get"]>[0]; passkeyRefusal?: string };
    init: ResponseInit | null;
  };
  const options = started.data.passkeyRequestOptions;
  if (!options) return { refusal: started.data.passkeyRefusal, status: started.init?.status, options };
  const cookie = cookieHeader({ headers: new Headers(started.init?.headers) });
  const answer = calls.post(
    path,
    { intent: "passkey-sign-in", credential: JSON.stringify(passkey.get(options)) },
    cookie,
  );
  answer.headers.set("User-Agent", FIREFOX);
  const signedIn = (await settle(signInPage.action(calls.args(answer, await calls.context(answer, null))))) as Response;
  return { response: signedIn, options };
}

test("a member adds a passkey after a recent password: stored, listed from our table alone, recorded and mailed", async () => {
  const member = await createMember("passkey-add");
  const browser = await signedInMember(member);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });

  const added = await addPasskey(browser, passkey);
  expect(added.status).toBe(302);
  expect(added.headers.get("Location")).toBe(pathFor("my-security", "en"));
  const [row] = await passkeyRows(member.sub);
  expect(row).toMatchObject({ credentialId: passkey.id, name: null, madeOnBrowser: "Firefox 140" });
  expect(row?.madeOnDevice).toMatch(/^Windows/);
  expect(await eventsOf(member.sub, "passkey-added")).toHaveLength(1);
  const [mail] = await mailsTo(member.email);
  expect(mail?.subject).toBe("A passkey was added to your account");
  expect(mail?.text).toContain("Firefox 140");

  // The page lists it without asking Cognito anything.
  await resetRequestCounts(endpoint());
  const view = calls.get(pathFor("my-security", "en"));
  const page = await securityPage.loader(calls.args(view, await calls.context(view, browser)));
  expect(page.passkeys).toEqual([
    expect.objectContaining({
      credentialId: passkey.id,
      label: expect.stringContaining("Firefox 140"),
      lastUsedAt: null,
    }),
  ]);
  expect((await getRequestCounts(endpoint())).total).toBe(0);
});

test("adding, deleting and renaming eleven minutes after the password go through the password step first", async () => {
  const member = await createMember("passkey-stale");
  const browser = await signedInMember(member);
  moveClock(REAUTHENTICATION_WINDOW_MS + MINUTE_MS);
  const stale = await asSeenNow(browser);
  const passwordStep = `${pathFor("my-reauthentication", "en")}?to=${encodeURIComponent(pathFor("my-security", "en"))}`;
  for (const intent of ["passkey-options", "passkey-add", "passkey-delete", "passkey-rename"]) {
    const answer = (await postPasskeyForm(stale, { intent, credentialId: "abc" })) as Response;
    expect(answer.status).toBe(302);
    expect(answer.headers.get("Location")).toBe(passwordStep);
  }
  expect(await passkeyRows(member.sub)).toHaveLength(0);
});

test("rename: the member's own name, then back to where it was made; another member's passkey is not found", async () => {
  const member = await createMember("passkey-rename");
  const browser = await signedInMember(member);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(browser, passkey);

  await postPasskeyForm(browser, { intent: "passkey-rename", credentialId: passkey.id, name: "  仕事用のMac  " });
  expect((await passkeyRows(member.sub))[0]?.name).toBe("仕事用のMac");
  await postPasskeyForm(browser, { intent: "passkey-rename", credentialId: passkey.id, name: "" });
  expect((await passkeyRows(member.sub))[0]?.name).toBeNull();

  const tooLong = (await postPasskeyForm(browser, {
    intent: "passkey-rename",
    credentialId: passkey.id,
    name: "x".repeat(61),
  })) as Response;
  expect(tooLong.headers.get("Location")).toBe(pathFor("my-security", "en"));
  expect((await passkeyRows(member.sub))[0]?.name).toBeNull();

  const other = await signedInMember(await createMember("passkey-rename-other"));
  await postPasskeyForm(other, { intent: "passkey-rename", credentialId: passkey.id, name: "mine now" });
  await postPasskeyForm(other, { intent: "passkey-delete", credentialId: passkey.id });
  expect(await passkeyRows(member.sub)).toEqual([expect.objectContaining({ name: null })]);
});

test("a passkey signs the member in with two Cognito calls, exactly as a password sign-in lands; its last use is listed", async () => {
  const member = await createMember("passkey-sign-in");
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(await signedInMember(member), passkey);

  await resetRequestCounts(endpoint());
  const { response } = await passkeySignIn(member.email, passkey);
  const counts = await getRequestCounts(endpoint());
  expect(counts.byOperation).toEqual({ AdminInitiateAuth: 1, AdminRespondToAuthChallenge: 1 });
  expect(response?.status).toBe(302);
  expect(response?.headers.get("Location")).toBe(pathFor("my-profile", "en"));
  const cookies = response?.headers.getSetCookie() ?? [];
  expect(cookies.some((cookie) => cookie.startsWith("id_session="))).toBe(true);
  expect(cookies.some((cookie) => /id_passkey_sign_in=;/.test(cookie))).toBe(true);
  expect((await passkeyRows(member.sub))[0]?.lastUsedAt).toEqual(current);
  const signIns = await app.db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.kind, "sign-in")));
  expect(signIns).toHaveLength(2);
});

test("the button tells nobody which addresses have passkeys: every address gets request options of one shape", async () => {
  const holder = await createMember("passkey-holder");
  const holderPasskey = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(await signedInMember(holder), holderPasskey);
  const withoutPasskey = await createMember("passkey-none");
  const stranger = new SoftwarePasskey({ origin: ORIGIN });

  await resetRequestCounts(endpoint());
  const none = await passkeySignIn(withoutPasskey.email, stranger);
  const unknown = await passkeySignIn(`nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`, stranger);
  const held = await passkeySignIn(holder.email, stranger);
  // One Cognito call to begin each, the same answer's shape for all: no allowCredentials to tell holders apart or to
  // hand out their credential ids. A passkey not in our list is refused before Cognito is asked.
  expect((await getRequestCounts(endpoint())).byOperation).toEqual({ AdminInitiateAuth: 3 });
  for (const answer of [none, unknown, held]) {
    expect(Object.keys(answer.options ?? {})).toEqual(["challenge", "timeout", "rpId", "userVerification"]);
    expect(answer.options).toMatchObject({ timeout: 180_000, rpId: "localhost", userVerification: "required" });
    expect(JSON.stringify(answer.options)).not.toContain(holderPasskey.id);
  }
  // A passkey that is not the member's is refused alike, whoever the address is.
  const refusedAt = (answer: typeof none) => [answer.response?.status, answer.response?.headers.get("Location")];
  expect(refusedAt(none)).toEqual([302, `${pathFor("auth-sign-in", "en")}?to=my-profile`]);
  expect(refusedAt(unknown)).toEqual(refusedAt(none));
  expect(refusedAt(held)).toEqual(refusedAt(none));
  expect(toastOf(none.response!)).toBe(toastOf(held.response!));

  const empty = await passkeySignIn("", stranger);
  expect(empty).toEqual({ refusal: "Please enter your e-mail address first", status: 400, options: undefined });
});

/** Passkey autofill's pick: only the picked passkey's credential id is posted, with no address. */
async function autofillPick(credentialId: string) {
  const path = `${pathFor("auth-sign-in", "en")}?to=my-profile`;
  const pick = calls.post(path, { intent: "passkey-autofill", credentialId });
  const answer = (await settle(signInPage.action(calls.args(pick, await calls.context(pick, null))))) as {
    data: { passkeyRequestOptions?: Parameters<SoftwarePasskey["get"]>[0]; passkeyRefusal?: string };
    init: ResponseInit | null;
  };
  const headers = new Headers(answer.init?.headers);
  return { ...answer, path, setCookie: headers.get("Set-Cookie"), cookie: cookieHeader({ headers }) };
}

/** Everything the browser was sent, the cookie's value decoded as far as anyone holding it could. */
function everythingSent(answer: Awaited<ReturnType<typeof autofillPick>>): string {
  const value = decodeURIComponent(answer.cookie.split("=")[1] ?? "");
  return [JSON.stringify(answer.data), answer.setCookie ?? "", Buffer.from(value, "base64").toString("latin1")].join(
    "\n",
  );
}

test("passkey autofill: the picked credential id starts the member's challenge for that passkey alone; its assertion signs in", async () => {
  const member = await createMember("passkey-autofill");
  const browser = await signedInMember(member);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  const other = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(browser, other);
  await addPasskey(browser, passkey);
  // The directory learns the address from the app's own Cognito writes, off the member's path.
  await expect
    .poll(async () => (await app.db.select().from(memberDirectory)).some((row) => row.sub === member.sub))
    .toBe(true);

  await resetRequestCounts(endpoint());
  const picked = await autofillPick(passkey.id);
  const options = picked.data.passkeyRequestOptions;
  expect(options?.allowCredentials).toEqual([{ type: "public-key", id: passkey.id }]);
  expect(options?.challenge).toEqual(expect.any(String));
  expect(everythingSent(picked)).not.toContain(member.email);
  expect(everythingSent(picked)).not.toContain(member.email.split("@")[0]);

  const answer = calls.post(
    picked.path,
    { intent: "passkey-sign-in", credential: JSON.stringify(passkey.get(options!)) },
    picked.cookie,
  );
  answer.headers.set("User-Agent", FIREFOX);
  const signedIn = (await settle(signInPage.action(calls.args(answer, await calls.context(answer, null))))) as Response;
  expect(signedIn.status).toBe(302);
  expect(signedIn.headers.get("Location")).toBe(pathFor("my-profile", "en"));
  expect(signedIn.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(true);
  const counts = await getRequestCounts(endpoint());
  expect(counts.byOperation).toEqual({ AdminInitiateAuth: 1, AdminRespondToAuthChallenge: 1 });
  const rows = await passkeyRows(member.sub);
  expect(rows.find((row) => row.credentialId === passkey.id)?.lastUsedAt).toEqual(current);
});

test("passkey autofill: a member the staff directory has not mirrored yet is asked of Cognito, then challenged", async () => {
  const member = await createMember("passkey-autofill-new");
  const browser = await signedInMember(member);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(browser, passkey);
  // As for a member who signed up since the directory's last reconcile.
  await expect
    .poll(async () => (await app.db.select().from(memberDirectory)).some((row) => row.sub === member.sub))
    .toBe(true);
  await app.db.delete(memberDirectory).where(eq(memberDirectory.sub, member.sub));

  await resetRequestCounts(endpoint());
  const picked = await autofillPick(passkey.id);
  expect(picked.data.passkeyRequestOptions?.allowCredentials).toEqual([{ type: "public-key", id: passkey.id }]);
  expect(everythingSent(picked)).not.toContain(member.email);
  expect((await getRequestCounts(endpoint())).byOperation).toEqual({ AdminGetUser: 1, AdminInitiateAuth: 1 });
});

test("passkey autofill: an unknown or malformed credential id reads as a wrong passkey, asks Cognito nothing and names nobody", async () => {
  await resetRequestCounts(endpoint());
  const unknown = await autofillPick(new SoftwarePasskey({ origin: ORIGIN }).id);
  expect(unknown.data).toEqual({
    passkeyRefusal: "The passkey could not be used. Please try again, or log in with your password",
  });
  expect(unknown.setCookie).toBeNull();
  const malformed = await autofillPick("not a credential id!");
  expect(malformed.data).toEqual(unknown.data);
  expect((await getRequestCounts(endpoint())).byOperation).toEqual({});

  // A pick only starts a challenge: it counts as a sign-in call from its client, and never against an account, so
  // picks of ids nobody has can close nobody's passkey (only a passkey Cognito refuses counts for the address).
  const credentialId = new SoftwarePasskey({ origin: ORIGIN }).id;
  for (let attempt = 1; attempt <= 11; attempt++) {
    const pick = await autofillPick(credentialId);
    expect(pick.data).toEqual(unknown.data);
    expect(pick.init?.status).toBe(400);
  }
});

test("a deleted passkey is gone at Cognito too: it signs nobody in; the deletion is recorded and mailed", async () => {
  const member = await createMember("passkey-delete");
  const browser = await signedInMember(member);
  const kept = new SoftwarePasskey({ origin: ORIGIN });
  const deleted = new SoftwarePasskey({ origin: ORIGIN });
  await addPasskey(browser, kept);
  await addPasskey(browser, deleted);

  expect(await countPasskeys(app.db, member.sub)).toBe(2);
  const answer = (await postPasskeyForm(browser, { intent: "passkey-delete", credentialId: deleted.id })) as Response;
  expect(answer.headers.get("Location")).toBe(pathFor("my-security", "en"));
  expect((await passkeyRows(member.sub)).map((row) => row.credentialId)).toEqual([kept.id]);
  // The sibling API's member view counts the same list.
  expect(await countPasskeys(app.db, member.sub)).toBe(1);
  expect(await eventsOf(member.sub, "passkey-removed")).toHaveLength(1);
  expect((await mailsTo(member.email)).map((mail) => mail.subject)).toContain(
    "A passkey was deleted from your account",
  );

  // Its assertion is refused at Cognito; the passkey that stays still works.
  const refused = await passkeySignIn(member.email, deleted);
  expect(refused.response?.headers.get("Location")).toBe(`${pathFor("auth-sign-in", "en")}?to=my-profile`);
  expect(refused.response?.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(false);
  const accepted = await passkeySignIn(member.email, kept);
  expect(accepted.response?.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(true);

  // Deleting it again changes nothing and mails nothing more.
  await postPasskeyForm(browser, { intent: "passkey-delete", credentialId: deleted.id });
  expect(await eventsOf(member.sub, "passkey-removed")).toHaveLength(1);
  const outbox = await app.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, member.email));
  expect(outbox.filter((row) => (row.details as { change?: string }).change === "removed")).toHaveLength(1);
});

/** The toast a redirect carries, decoded from its signed cookie (base64 JSON before the signature). */
function toastOf(response: Response): string {
  const raw = decodeURIComponent(pairOf(setCookieNamed(response, "toast") ?? "").slice("toast=".length));
  return Buffer.from(raw.slice(0, raw.lastIndexOf(".")), "base64").toString("utf8");
}

test("passkey posts are rate-limited per member: past the limit nothing changes and the page says to try later", async () => {
  const member = await createMember("passkey-limit");
  const browser = await signedInMember(member);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  // Adding is two posts: the options and the browser's answer.
  expect((await addPasskey(browser, passkey)).status).toBe(302);
  for (let post = 2; post < PASSKEY_CHANGE_LIMIT; post++) {
    await postPasskeyForm(browser, { intent: "passkey-rename", credentialId: passkey.id, name: `name ${post}` });
  }
  expect((await passkeyRows(member.sub))[0]?.name).toBe(`name ${PASSKEY_CHANGE_LIMIT - 1}`);

  const limited = (await postPasskeyForm(browser, { intent: "passkey-delete", credentialId: passkey.id })) as Response;
  expect(limited.status).toBe(302);
  expect(limited.headers.get("Location")).toBe(pathFor("my-security", "en"));
  expect(toastOf(limited)).toContain("attemptLimitExceeded");
  expect(await passkeyRows(member.sub)).toHaveLength(1);
  expect(await eventsOf(member.sub, "passkey-removed")).toHaveLength(0);

  // Another member is counted apart.
  const other = await signedInMember(await createMember("passkey-limit-other"));
  expect((await addPasskey(other, new SoftwarePasskey({ origin: ORIGIN }))).status).toBe(302);
});
