import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberDirectory } from "~db/schema";
import { confirmEmailChange, requestEmailChange } from "~/domain/account/email-change.server";
import { addPasskey, passkeyCreationOptions, removePasskey } from "~/domain/account/passkeys.server";
import { changePassword } from "~/domain/account/password-change.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { updateProfile } from "~/domain/account/profile.server";
import { completeFirstSignIn, signIn } from "~/domain/account/sign-in.server";
import { confirmSignUp, startSignUp } from "~/domain/account/sign-up.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import type { Profile } from "~/domain/forms/profile-schemas";
import { unsubscribeFromNewsletter } from "~/domain/newsletter/newsletter.server";
import { recordSignUp } from "~/domain/security/security-record.server";
import { startAuthenticatorSetup, turnOffTwoStep, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";
import { accountEventLog } from "../../support/account-event-log";
import { codeMailsTo } from "../../support/code-mails";
import { MEMBER_PASSWORD, serverTokenFor, signInMember, signedInMember } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { resetHarness, setFault } from "../../support/stand-in-faults";
import { useTestServices } from "../../support/test-services";
import { totpCode } from "../../support/totp-codes";

// The member's own changes, each through its domain verb against the real parts (the Cognito stand-in over HTTP,
// the database): each records its event once, in the change's transaction, and a change that fails records none.
const ORIGIN = "http://localhost:3981";
const app = useTestServices({ label: "recording-member", origin: ORIGIN });
const endpoint = () => app.stack.env.COGNITO_ENDPOINT!;
const browser = { clientIp: "192.0.2.30", locale: "ja" as const };

const { lastSequence, newEvents, sidOfSession } = accountEventLog(() => app.db);

const PROFILE: Profile = {
  familyName: "山田",
  givenName: "花子",
  birthYear: 1990,
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  organization: "設計事務所",
  preferredLanguage: "ja",
};

test("a confirmed sign-up records member.created once with its address, however often its code step is posted", async () => {
  const email = `sign-up-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const { identity } = app.services;
  const { sub } = await startSignUp(identity, { email, password: "maple-orbit-quartz-27", locale: "ja" });
  const [mail] = await codeMailsTo(app.dataDir, email);
  await confirmSignUp(identity, { email, sub, code: mail!.code! });
  // The sign-up's own request wrote the directory's row, long before the code step's request.
  await expect
    .poll(async () => (await app.db.select().from(memberDirectory).where(eq(memberDirectory.sub, sub))).length)
    .toBe(1);
  const signUp = {
    sub,
    email,
    deviceKey: crypto.randomUUID(),
    deviceName: "Mac",
    browser: "Safari 18",
    ipAddress: "192.0.2.1",
  };
  await recordSignUp(app.db, { ...signUp, occurredAt: new Date() });
  // A double click: Cognito is not asked again and the sign-up is not announced again.
  await confirmSignUp(identity, { email, sub, code: mail!.code! });
  await recordSignUp(app.db, { ...signUp, occurredAt: new Date() });
  expect(await newEvents(sub, 0)).toEqual([{ type: "member.created", data: { email, via: "sign-up" } }]);
});

test("a profile save announces only the fields whose value changed, and the newsletter choice apart", async () => {
  const member = await signedInMember(app.services, "profile", browser);
  const { sub } = member;
  let after = await lastSequence(sub);
  // The first save makes the profile: every field is new. A member without a row receives the newsletter already.
  await updateProfile(app.services, { sub, profile: PROFILE, receivesNewsletter: true });
  expect(await newEvents(sub, after)).toEqual([{ type: "member.updated", data: { changed: PROFILE } }]);

  after = await lastSequence(sub);
  expect(await updateProfile(app.services, { sub, profile: PROFILE, receivesNewsletter: true })).toBe("settings");
  expect(await newEvents(sub, after)).toEqual([]);

  await updateProfile(app.services, {
    sub,
    profile: { ...PROFILE, occupation: "engineering", preferredLanguage: "en" },
    receivesNewsletter: false,
  });
  expect(await newEvents(sub, after)).toEqual([
    { type: "member.updated", data: { changed: { occupation: "engineering", preferredLanguage: "en" } } },
    { type: "member.newsletter_changed", data: { newsletter: false } },
  ]);

  // The one-click unsubscribe: announced when it changes the choice, once however often it is posted.
  after = await lastSequence(sub);
  await unsubscribeFromNewsletter(app.db, sub);
  await updateProfile(app.services, { sub, profile: PROFILE, receivesNewsletter: true });
  await unsubscribeFromNewsletter(app.db, sub);
  await unsubscribeFromNewsletter(app.db, sub);
  expect(await newEvents(sub, after)).toEqual([
    { type: "member.updated", data: { changed: { occupation: "architect", preferredLanguage: "ja" } } },
    { type: "member.newsletter_changed", data: { newsletter: true } },
    { type: "member.newsletter_changed", data: { newsletter: false } },
  ]);

  // Cognito refusing the names: nothing is stored, nothing announced.
  after = await lastSequence(sub);
  await setFault(endpoint(), { mode: "fail", operations: ["AdminUpdateUserAttributes"], times: 10 });
  try {
    await expect(
      updateProfile(app.services, { sub, profile: { ...PROFILE, familyName: "佐藤" }, receivesNewsletter: true }),
    ).rejects.toThrow();
  } finally {
    await resetHarness(endpoint());
  }
  expect(await newEvents(sub, after)).toEqual([]);
});

test("an e-mail change announces the new address once, when the member's link completes it", async () => {
  const member = await signedInMember(app.services, "email", browser);
  const deps = {
    db: app.db,
    identity: app.services.identity,
    mailer: withDomainErrors(createMailer({ smtpUrl: app.stack.env.SMTP_URL!, mailFrom: "ID <no-reply@localhost>" })),
    mailTexts: i18nextOutsideRequests,
    confirmationLink: emailUpdateLinkFor(ORIGIN),
  };
  const newEmail = `moved-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const after = await lastSequence(member.sub);
  let token = "";
  const mailer = deps.mailer;
  await requestEmailChange(
    {
      ...deps,
      mailer: {
        ...mailer,
        sendEmailChangeLink: async (input) => {
          token = new URL(input.link).pathname.split("/").filter(Boolean).at(-1)!;
          await mailer.sendEmailChangeLink(input);
        },
      },
    },
    { sub: member.sub, currentEmail: member.email, newEmail, locale: "ja" },
  );
  expect(await newEvents(member.sub, after)).toEqual([]);

  // Cognito failing: the link works again, and nothing was announced.
  await setFault(endpoint(), { mode: "fail", operations: ["AdminUpdateUserAttributes"], times: 10 });
  try {
    await expect(confirmEmailChange(deps, { token, clientIp: browser.clientIp })).rejects.toThrow();
  } finally {
    await resetHarness(endpoint());
  }
  expect(await newEvents(member.sub, after)).toEqual([]);

  expect(await confirmEmailChange(deps, { token, clientIp: browser.clientIp })).toMatchObject({ kind: "changed" });
  expect(await confirmEmailChange(deps, { token, clientIp: browser.clientIp })).toEqual({ kind: "expired" });
  expect(await newEvents(member.sub, after)).toEqual([{ type: "member.email_changed", data: { email: newEmail } }]);
});

test("a password change announces the change and every session it ended; a wrong current password nothing", async () => {
  const member = await signedInMember(app.services, "password", browser);
  const other = await signInMember(app.services, member.email, browser);
  const [ownSid, otherSid] = [await sidOfSession(member.sessionId), await sidOfSession(other.sessionId)];
  const after = await lastSequence(member.sub);
  const change = {
    sub: member.sub,
    email: member.email,
    sessionId: member.sessionId,
    newPassword: "maple-orbit-quartz-27",
    familyName: null,
    givenName: null,
    ...browser,
  };
  await expect(
    changePassword(app.services, { ...change, currentPassword: "not-the-password-at-all" }),
  ).rejects.toThrow();
  expect(await newEvents(member.sub, after)).toEqual([]);

  await changePassword(app.services, { ...change, currentPassword: MEMBER_PASSWORD });
  const events = await newEvents(member.sub, after);
  expect(events.slice(0, 2)).toEqual([
    { type: "member.password_changed", data: { via: "change" } },
    { type: "session.revoked", data: { sid: otherSid, reason: "password-changed" } },
  ]);
  // This browser keeps its session with a new sign-in: the siblings' sid of the old one ended, the new one began.
  expect(events.slice(2)).toEqual([
    { type: "session.revoked", data: { sid: ownSid, reason: "password-changed" } },
    {
      type: "session.created",
      data: { sid: await sidOfSession(member.sessionId), device: expect.any(String), browser: expect.any(String) },
    },
  ]);
  expect(await sidOfSession(member.sessionId)).not.toBe(ownSid);
});

test("a password reset announces the reset and ends every session; a wrong code announces nothing", async () => {
  const member = await signedInMember(app.services, "reset", browser);
  const sid = await sidOfSession(member.sessionId);
  const after = await lastSequence(member.sub);
  await requestPasswordReset(app.services, member.email, "ja");
  const [mail] = await codeMailsTo(app.dataDir, member.email);
  const reset = { email: member.email, password: "maple-orbit-quartz-27", ...browser };
  await expect(confirmPasswordReset(app.services, { ...reset, code: "000000" })).rejects.toThrow();
  expect(await newEvents(member.sub, after)).toEqual([]);

  await confirmPasswordReset(app.services, { ...reset, code: mail!.code! });
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.password_changed", data: { via: "reset" } },
    { type: "session.revoked", data: { sid, reason: "password-reset" } },
  ]);
});

test("an invited member's first sign-in announces the password they chose and their session", async () => {
  const email = `invited-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const sub = await app.services.identity.inviteUser({ email, attributes: { locale: "ja" } });
  const [invitation] = await codeMailsTo(app.dataDir, email);
  const signInBrowser = { email, deviceKey: crypto.randomUUID(), userAgent: null, ...browser };
  const first = await signIn(app.services, { ...signInBrowser, password: invitation!.code! });
  if (first.kind !== "newPasswordRequired") throw new Error(`sign-in ended as ${first.kind}`);
  await completeFirstSignIn(app.services, { ...signInBrowser, ...first, newPassword: "maple-orbit-quartz-27" });
  const events = await newEvents(sub, 0);
  expect(events.map((event) => event.type)).toEqual(["session.created", "member.password_changed"]);
  expect(events[1]!.data).toEqual({ via: "first-sign-in" });
});

test("2-step verification turned on and off by the member announces each change once", async () => {
  const member = await signedInMember(app.services, "two-step", browser);
  const token = await serverTokenFor(app.services, member);
  const after = await lastSequence(member.sub);
  const secret = await startAuthenticatorSetup(app.services, { token });
  const change = { sub: member.sub, email: member.email, sessionId: member.sessionId, ...browser };
  // A wrong first code: Cognito refuses, nothing is on and nothing announced.
  await expect(turnOnTwoStep(app.services, { ...change, token, code: "000000" })).rejects.toThrow();
  expect(await newEvents(member.sub, after)).toEqual([]);

  await turnOnTwoStep(app.services, { ...change, token, code: totpCode(secret) });
  expect(await turnOffTwoStep(app.services, { ...change, by: "member" })).toBe(true);
  expect(await turnOffTwoStep(app.services, { ...change, by: "member" })).toBe(false);
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.two_step_changed", data: { authenticatorApp: true } },
    { type: "member.two_step_changed", data: { authenticatorApp: false } },
  ]);
});

test("a passkey added and removed announces each change with the number left; a refused one nothing", async () => {
  const member = await signedInMember(app.services, "passkey", browser);
  const token = await serverTokenFor(app.services, member);
  const change = { sub: member.sub, email: member.email, token, userAgent: null, ...browser };
  const after = await lastSequence(member.sub);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  /** A new credential of the software authenticator, as the browser posts it. */
  const newCredential = async () => {
    const options = await passkeyCreationOptions(app.services, { token });
    const made = passkey.create(options as unknown as Parameters<SoftwarePasskey["create"]>[0]);
    return made as unknown as { id: string } & Record<string, unknown>;
  };
  const credential = await newCredential();
  await setFault(endpoint(), { mode: "fail", operations: ["CompleteWebAuthnRegistration"], times: 10 });
  try {
    await expect(addPasskey(app.services, { ...change, credential })).rejects.toThrow();
  } finally {
    await resetHarness(endpoint());
  }
  expect(await newEvents(member.sub, after)).toEqual([]);

  const again = await newCredential();
  await addPasskey(app.services, { ...change, credential: again });
  await removePasskey(app.services, { ...change, credentialId: again.id });
  await removePasskey(app.services, { ...change, credentialId: again.id });
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.passkeys_changed", data: { change: "added", passkeys: 1 } },
    { type: "member.passkeys_changed", data: { change: "removed", passkeys: 0 } },
  ]);
});
