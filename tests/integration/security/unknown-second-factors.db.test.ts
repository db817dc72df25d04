import { and, eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { mailOutbox, memberDirectory, memberPasskeys, securityEvents, unknownPasskeys } from "~db/schema";
import { signIn } from "~/domain/account/sign-in.server";
import { checkMemberFactors, reconcileFactors } from "~/domain/security/factor-reconcile.server";
import { sendDueMail } from "~/domain/mail/mail-outbox.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import * as signInPage from "~/routes/default/auth-sign-in";
import { pathFor } from "~/routing/route-table";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import { cookieHeader } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { serverTokenFor } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { totpCode } from "../../support/totp-codes";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// docs/security.md, "Our record of second factors is the truth": a passkey registered at Cognito around our
// pages (as a copied cookie's token could before the pool's trigger took its scope: a server token stands in for it
// here) is refused at our sign-in, noted, mailed, and removed at Cognito the next time the member's password makes a
// server token; the reconcile job finds it for members who never sign in. Real parts: the stand-in over HTTP (its
// WebAuthn checks), PGlite or PostgreSQL, the SMTP capture.
const ORIGIN = "http://localhost:3997";
const PASSWORD = "correct-horse-battery";
// It sends the outbox's mail.
const app = useTestServices({ label: "unknown-second-factors", origin: ORIGIN, ownDatabase: true });
const calls = routeCalls(ORIGIN, () => app.services);
const browser = { userAgent: null, clientIp: "192.0.2.30", locale: "en" as const };

async function memberWithHiddenPasskey(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "en" } });
  const sub = (await app.services.identity.getUser(email)).sub;
  // The directory learns the address from the app's own Cognito writes, off the member's path.
  await expect
    .poll(async () => (await app.db.select().from(memberDirectory).where(eq(memberDirectory.sub, sub))).length)
    .toBe(1);
  const token = await serverTokenFor(app.services, { sub, email }, PASSWORD);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  const options = await app.services.identity.startPasskeyRegistration(token);
  await app.services.identity.completePasskeyRegistration({
    token,
    credential: { ...passkey.create(options as never) },
  });
  return { email, sub, passkey };
}

const atCognito = async (member: { sub: string; email: string }) =>
  app.services.identity.listPasskeyCredentialIds(await serverTokenFor(app.services, member, PASSWORD));

async function kindsOf(sub: string) {
  const rows = await app.db
    .select({ kind: securityEvents.kind })
    .from(securityEvents)
    .where(eq(securityEvents.sub, sub));
  return rows.map((row) => row.kind);
}

async function noticesTo(email: string) {
  const rows = await app.db
    .select({ details: mailOutbox.details })
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, email));
  return rows.map((row) => (row.details as { change?: string }).change);
}

/** The sign-in form's passkey button, then the software authenticator's assertion, as the browser posts them. */
async function passkeySignIn(email: string, passkey: SoftwarePasskey) {
  const path = `${pathFor("auth-sign-in", "en")}?to=my-profile`;
  const start = calls.post(path, { intent: "passkey-options", email, password: "" });
  const started = (await settle(signInPage.action(calls.args(start, await calls.context(start, null))))) as {
    data: { passkeyRequestOptions: Parameters<SoftwarePasskey["get"]>[0] };
    init: ResponseInit | null;
  };
  const options = started.data.passkeyRequestOptions;
  const answer = calls.post(
    path,
    { intent: "passkey-sign-in", credential: JSON.stringify(passkey.get(options)) },
    cookieHeader({ headers: new Headers(started.init?.headers) }),
  );
  const response = (await settle(signInPage.action(calls.args(answer, await calls.context(answer, null))))) as Response;
  return { options, response };
}

test("a passkey registered at Cognito around our pages is refused at sign-in, then removed at the next password sign-in", async () => {
  const member = await memberWithHiddenPasskey("hidden-passkey");
  expect(await app.db.select().from(memberPasskeys).where(eq(memberPasskeys.sub, member.sub))).toEqual([]);

  // Our sign-in offers no credential ids, and takes none our list lacks: the attacker's passkey signs nobody in.
  const { options, response } = await passkeySignIn(member.email, member.passkey);
  expect(options).not.toHaveProperty("allowCredentials");
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(false);
  // Cognito named it in its challenge: noted once, recorded and mailed.
  const [owed] = await app.db.select().from(unknownPasskeys).where(eq(unknownPasskeys.sub, member.sub));
  expect(owed).toMatchObject({ credentialId: member.passkey.id, removedAt: null });
  expect(await kindsOf(member.sub)).toContain("unknown-passkey-found");
  expect(await noticesTo(member.email)).toEqual(["unknownFound"]);
  await passkeySignIn(member.email, member.passkey);
  expect(await noticesTo(member.email)).toEqual(["unknownFound"]);

  // The member's next password sign-in makes a server token; with it the passkey goes at Cognito.
  const signedIn = await signIn(app.services, { ...browser, email: member.email, password: PASSWORD, deviceKey: "k1" });
  expect(signedIn.kind).toBe("active");
  await expect.poll(() => atCognito(member), { timeout: 30_000 }).toEqual([]);
  await expect
    .poll(async () => (await app.db.select().from(unknownPasskeys).where(eq(unknownPasskeys.sub, member.sub)))[0])
    .toMatchObject({ removedAt: expect.any(Date) });
  expect(await kindsOf(member.sub)).toContain("unknown-passkey-removed");
  await expect.poll(() => noticesTo(member.email)).toEqual(["unknownFound", "unknownRemoved"]);

  // Both mails in the member's language, with the way to reset the password.
  await sendDueMail({ ...app.services, mailTexts: i18nextOutsideRequests, links: securityMailLinksFor(ORIGIN) });
  const mails = (await listMailboxEntries(mailboxDirectory(app.dataDir))).filter((entry) =>
    entry.to.includes(member.email),
  );
  expect(mails.map((mail) => mail.subject).sort()).toEqual([
    "A passkey we did not add was found on your account",
    "We removed a passkey we did not add",
  ]);
  expect(mails[0]?.text).toContain(`${ORIGIN}/en/auth/forgot-password/`);
});

test("the reconcile job finds a hidden passkey and an authenticator our record does not know, for members who never sign in", async () => {
  const member = await memberWithHiddenPasskey("reconcile");
  const token = await serverTokenFor(app.services, member, PASSWORD);
  const secret = await app.services.identity.associateSoftwareToken(token);
  await app.services.identity.verifySoftwareToken({ token, code: totpCode(secret) });
  await app.services.identity.setSoftwareTokenPreferenceOf({ username: member.sub, enabled: true });

  await checkMemberFactors(app.services, { sub: member.sub, email: member.email, locale: "en" });
  expect((await app.services.identity.getUser(member.sub)).mfaMethods).toEqual([]);
  const [owed] = await app.db
    .select()
    .from(unknownPasskeys)
    .where(and(eq(unknownPasskeys.sub, member.sub), eq(unknownPasskeys.credentialId, member.passkey.id)));
  expect(owed?.removedAt).toBeNull();
  expect(await kindsOf(member.sub)).toEqual(
    expect.arrayContaining(["unknown-second-factor-removed", "unknown-passkey-found"]),
  );
  expect((await noticesTo(member.email)).sort()).toEqual(["unknownFound", "unknownRemoved"]);
  // A second look finds nothing new to tell.
  await checkMemberFactors(app.services, { sub: member.sub, email: member.email, locale: "en" });
  expect(await noticesTo(member.email)).toHaveLength(2);

  // The job walks the directory a batch a run, from where it left off, and round again.
  await expect(reconcileFactors(app.services, { members: 1000, requestsPerSecond: 50 })).resolves.toBeGreaterThan(0);
});
