import bcrypt from "bcryptjs";
import { and, eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import {
  legacyCredentials,
  mailOutbox,
  memberProfiles,
  memberSessions,
  pendingCognitoChanges,
  staffAuditEvents,
} from "~db/schema";
import {
  UNRESOLVED_PASSWORD_RETENTION_DAYS,
  repairPendingCognitoChanges,
} from "~/domain/account/cognito-change-repair.server";
import { PENDING_COGNITO_CHANGE_SETTLE_MS } from "~/domain/account/pending-cognito-changes.server";
import { importLegacyRows } from "~/domain/account/legacy-accounts.server";
import { addPasskey, listPasskeys, passkeyCreationOptions } from "~/domain/account/passkeys.server";
import { changePassword } from "~/domain/account/password-change.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { completeFirstSignIn, signIn } from "~/domain/account/sign-in.server";
import { changeMemberEmail } from "~/domain/staff/staff-actions.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { accountEventLog } from "../../support/account-event-log";
import { codeMailsTo } from "../../support/code-mails";
import { MEMBER_PASSWORD, serverTokenFor, signInMember, signedInMember } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { getFault, resetHarness, setFault } from "../../support/stand-in-faults";
import { useTestServices } from "../../support/test-services";

// Changes Cognito makes before our record (app/domain/account/pending-cognito-changes.server.ts), cut off between the
// two: by a commit that fails after Cognito answered (as a process that dies there leaves things), or by an answer
// that is lost. The real flows run against the Cognito stand-in and the database; the repair and the next password
// sign-in then record each change Cognito made exactly once, and nothing for a change it never made.
const ORIGIN = "http://localhost:3982";
// Its own database on PostgreSQL: the repair here runs as of a later time, and must not take other files' notes.
const app = useTestServices({ label: "cut-off-changes", origin: ORIGIN, ownDatabase: true });
const endpoint = () => app.stack.env.COGNITO_ENDPOINT!;
const browser = { clientIp: "192.0.2.40", locale: "ja" as const };
const NEW_PASSWORD = "maple-orbit-quartz-27";

/** The password change a signed-in member posts: from MEMBER_PASSWORD to NEW_PASSWORD. */
const passwordChangeOf = (member: { sub: string; email: string; sessionId: string }) => ({
  sub: member.sub,
  email: member.email,
  sessionId: member.sessionId,
  currentPassword: MEMBER_PASSWORD,
  newPassword: NEW_PASSWORD,
  familyName: null,
  givenName: null,
  ...browser,
});
const { lastSequence, newEvents } = accountEventLog(() => app.db);

/** A moment when every note made so far is past the repair's settle time. */
const afterSettling = () => new Date(Date.now() + PENDING_COGNITO_CHANGE_SETTLE_MS + 1_000);
const repair = (now = afterSettling()) => repairPendingCognitoChanges(app.services, now);

/** The notes left for a member, by sub or by the address a note without one was made for. */
const notesOf = (match: { sub: string } | { email: string }) =>
  app.db
    .select({ kind: pendingCognitoChanges.kind })
    .from(pendingCognitoChanges)
    .where("sub" in match ? eq(pendingCognitoChanges.sub, match.sub) : eq(pendingCognitoChanges.email, match.email));

/** The member's notes made as long ago as the settle time: no request can hold them any more. */
const ageNotesPastSettling = (member: { sub: string }) => {
  const seconds = PENDING_COGNITO_CHANGE_SETTLE_MS / 1000 + 1;
  return app.db
    .update(pendingCognitoChanges)
    .set({ createdAt: sql`${pendingCognitoChanges.createdAt} - make_interval(secs => ${seconds})` })
    .where(eq(pendingCognitoChanges.sub, member.sub));
};

/** What a cut-off commit is recognised by: an account event of the member, or a write to a table of ours. */
type CommitMatch = { sub: string } | { email: string } | { table: string; where: string };

/**
 * Until the returned function is called, every transaction that records an account event of this member (by sub, or
 * by the event's address for a member Cognito has not named yet), or that writes the matching row, fails at its
 * commit (a deferred constraint trigger), after all its statements ran: what a process dying after Cognito's answer
 * leaves behind.
 */
async function failCommitsOf(match: CommitMatch): Promise<() => Promise<void>> {
  const name = `fail_commit_${crypto.randomUUID().replaceAll("-", "")}`;
  const [table, condition] =
    "table" in match
      ? [match.table, match.where]
      : ["account_events", "sub" in match ? `new.sub = '${match.sub}'::uuid` : `new.data->>'email' = '${match.email}'`];
  await app.db.execute(
    sql.raw(`create function ${name}() returns trigger language plpgsql as $$
      begin if ${condition} then raise exception 'the commit is cut off (test)'; end if; return new; end $$`),
  );
  await app.db.execute(
    sql.raw(`create constraint trigger ${name} after insert or update on ${table} deferrable initially deferred
      for each row execute function ${name}()`),
  );
  return async () => {
    await app.db.execute(sql.raw(`drop trigger ${name} on ${table}`));
    await app.db.execute(sql.raw(`drop function ${name}()`));
  };
}

/** Runs `flow` with the member's commits cut off; it fails. */
async function cutOff(match: CommitMatch, flow: () => Promise<unknown>): Promise<void> {
  const restore = await failCommitsOf(match);
  try {
    await expect(flow()).rejects.toThrow();
  } finally {
    await restore();
  }
}

const mailsOf = (recipient: string, kind: string) =>
  app.db
    .select({ kind: mailOutbox.kind })
    .from(mailOutbox)
    .where(and(eq(mailOutbox.recipient, recipient), eq(mailOutbox.kind, kind)));

const staff = () => ({ sub: crypto.randomUUID(), email: "staff@example.jp", requestId: crypto.randomUUID() });

test("a staff e-mail change cut off after Cognito is recorded once by the repair, with its audit entry", async () => {
  const member = await signedInMember(app.services, "staff-cut", browser);
  const after = await lastSequence(member.sub);
  const newEmail = `staff-cut-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const actor = staff();
  await cutOff(member, () => changeMemberEmail(app.services, actor, member.sub, newEmail, i18nextOutsideRequests));
  expect(await newEvents(member.sub, after)).toEqual([]);
  // A retry is refused as the same address: Cognito has it already.
  await expect(
    changeMemberEmail(app.services, actor, member.sub, newEmail, i18nextOutsideRequests),
  ).rejects.toMatchObject({ code: "sameAddress" });

  // Not yet settled: the repair leaves the note to the request that may still hold it.
  expect((await repair(new Date())).recorded).toBe(0);
  expect((await repair()).recorded).toBe(1);
  expect((await repair()).recorded).toBe(0);
  expect(await newEvents(member.sub, after)).toEqual([{ type: "member.email_changed", data: { email: newEmail } }]);
  const [session] = await app.db.select().from(memberSessions).where(eq(memberSessions.id, member.sessionId));
  expect(session!.email).toBe(newEmail);
  const audit = await app.db.select().from(staffAuditEvents).where(eq(staffAuditEvents.requestId, actor.requestId));
  expect(audit).toMatchObject([{ action: "user.email-change", targetSub: member.sub, after: { email: newEmail } }]);
  expect(await notesOf(member)).toEqual([]);
});

test("a staff e-mail change Cognito never made is dropped by the repair, announcing nothing", async () => {
  const member = await signedInMember(app.services, "staff-never", browser);
  const after = await lastSequence(member.sub);
  const newEmail = `staff-never-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await setFault(endpoint(), { mode: "fail", operations: ["AdminUpdateUserAttributes"], times: 10 });
  try {
    await expect(
      changeMemberEmail(app.services, staff(), member.sub, newEmail, i18nextOutsideRequests),
    ).rejects.toMatchObject({ code: "unavailable" });
  } finally {
    await resetHarness(endpoint());
  }
  // No answer: the note stays for the repair, which finds the old address at Cognito.
  expect(await notesOf(member)).toEqual([{ kind: "staff-email-change" }]);
  expect((await repair()).dropped).toBe(1);
  expect(await notesOf(member)).toEqual([]);
  expect(await newEvents(member.sub, after)).toEqual([]);

  // The normal path leaves no note and announces once.
  await changeMemberEmail(app.services, staff(), member.sub, newEmail, i18nextOutsideRequests);
  expect(await notesOf(member)).toEqual([]);
  expect(await newEvents(member.sub, after)).toEqual([{ type: "member.email_changed", data: { email: newEmail } }]);
});

/** A member with a server token and a software authenticator, as the security page adds passkeys. */
async function passkeyMember(label: string) {
  const member = await signedInMember(app.services, label, browser);
  const token = await serverTokenFor(app.services, member);
  const change = { sub: member.sub, email: member.email, token, userAgent: null, ...browser };
  const authenticator = new SoftwarePasskey({ origin: ORIGIN });
  const newCredential = async () => {
    const options = await passkeyCreationOptions(app.services, { token });
    const made = authenticator.create(options as unknown as Parameters<SoftwarePasskey["create"]>[0]);
    return made as unknown as { id: string } & Record<string, unknown>;
  };
  return { member, change, newCredential };
}

test("a passkey Cognito stored before the commit was cut off is recorded and mailed once by the repair", async () => {
  const { member, change, newCredential } = await passkeyMember("passkey-cut");
  const after = await lastSequence(member.sub);
  const credential = await newCredential();
  await cutOff(member, () => addPasskey(app.services, { ...change, credential }));
  expect(await newEvents(member.sub, after)).toEqual([]);

  const [first, second] = await Promise.all([repair(), repair()]);
  expect(first!.recorded + second!.recorded).toBe(1);
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.passkeys_changed", data: { change: "added", passkeys: 1 } },
  ]);
  expect((await listPasskeys(app.db, member.sub)).map((passkey) => passkey.credentialId)).toEqual([credential.id]);
  expect(await mailsOf(member.email, "passkeyChanged")).toHaveLength(1);
  expect(await notesOf(member)).toEqual([]);
});

test("a passkey Cognito never stored leaves the list when the repair drops its note, announcing nothing", async () => {
  const { member, change, newCredential } = await passkeyMember("passkey-never");
  const after = await lastSequence(member.sub);
  const credential = await newCredential();
  await setFault(endpoint(), { mode: "fail", operations: ["CompleteWebAuthnRegistration"], times: 10 });
  try {
    await expect(addPasskey(app.services, { ...change, credential })).rejects.toThrow();
  } finally {
    await resetHarness(endpoint());
  }
  // Cognito's answer was no answer: the passkey stays listed and noted until the repair asks.
  expect(await listPasskeys(app.db, member.sub)).toHaveLength(1);
  await repair();
  expect(await listPasskeys(app.db, member.sub)).toEqual([]);
  expect(await notesOf(member)).toEqual([]);
  expect(await newEvents(member.sub, after)).toEqual([]);
  expect(await mailsOf(member.email, "passkeyChanged")).toEqual([]);

  // The normal path leaves no note.
  await addPasskey(app.services, { ...change, credential: await newCredential() });
  expect(await notesOf(member)).toEqual([]);
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.passkeys_changed", data: { change: "added", passkeys: 1 } },
  ]);
});

const OLD_PASSWORD = "old-password-2019";

/** A legacy account of its own (bcrypt cost 4: the tests need the behaviour, not the slowness). */
async function importLegacyMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await importLegacyRows(app.db, [
    {
      email,
      passwordHash: bcrypt.hashSync(OLD_PASSWORD, 4),
      profile: { familyName: "旧", givenName: label, preferredLanguage: "ja" },
    },
  ]);
  return email;
}

const signInBrowser = (email: string) => ({ email, deviceKey: crypto.randomUUID(), userAgent: null, ...browser });

test("a legacy migration whose commit was cut off after Cognito made the user is announced once by the repair", async () => {
  const email = await importLegacyMember("legacy-cut");
  await cutOff({ email }, () => signIn(app.services, { ...signInBrowser(email), password: OLD_PASSWORD }));
  const user = await app.services.identity.getUser(email);
  expect(user.confirmed).toBe(true);
  expect(await newEvents(user.sub, 0)).toEqual([]);

  const [first, second] = await Promise.all([repair(), repair()]);
  expect(first!.recorded + second!.recorded).toBe(1);
  expect(await newEvents(user.sub, 0)).toEqual([{ type: "member.created", data: { email, via: "legacy-migration" } }]);
  const [legacy] = await app.db.select().from(legacyCredentials).where(eq(legacyCredentials.email, email));
  expect(legacy).toMatchObject({ migratedSub: user.sub, migratedAt: expect.any(Date) });
  const [profile] = await app.db.select().from(memberProfiles).where(eq(memberProfiles.sub, user.sub));
  expect(profile).toMatchObject({ familyName: "旧", givenName: "legacy-cut" });
  expect(await notesOf({ email })).toEqual([]);
});

test("a legacy migration Cognito never made is dropped by the repair, and the next sign-in migrates once", async () => {
  const email = await importLegacyMember("legacy-never");
  await setFault(endpoint(), { mode: "fail", operations: ["AdminCreateUser"], times: 10 });
  try {
    await expect(signIn(app.services, { ...signInBrowser(email), password: OLD_PASSWORD })).rejects.toThrow();
  } finally {
    await resetHarness(endpoint());
  }
  expect(await notesOf({ email })).toEqual([{ kind: "legacy-migration" }]);
  await repair();
  expect(await notesOf({ email })).toEqual([]);
  expect(await app.services.identity.findUser(email)).toBeNull();

  const signedIn = await signIn(app.services, { ...signInBrowser(email), password: OLD_PASSWORD });
  expect(signedIn.kind).toBe("active");
  const user = await app.services.identity.getUser(email);
  expect((await newEvents(user.sub, 0)).filter((event) => event.type === "member.created")).toHaveLength(1);
  expect(await notesOf({ email })).toEqual([]);
});

test("a legacy migration cut off before its password leaves no half-made user: the repair deletes it, the next sign-in migrates", async () => {
  const email = await importLegacyMember("legacy-half");
  // The password and the undo both fail, and the commit that would remember the half-made user is cut off too.
  await setFault(endpoint(), { mode: "fail", operations: ["AdminSetUserPassword", "AdminDeleteUser"], times: 10 });
  try {
    await cutOff({ table: "legacy_credentials", where: `new.email = '${email}'` }, () =>
      signIn(app.services, { ...signInBrowser(email), password: OLD_PASSWORD }),
    );
  } finally {
    await resetHarness(endpoint());
  }
  expect((await app.services.identity.getUser(email)).confirmed).toBe(false);
  expect(await notesOf({ email })).toEqual([{ kind: "legacy-migration" }]);

  expect((await repair()).dropped).toBe(1);
  expect(await app.services.identity.findUser(email)).toBeNull();
  expect(await notesOf({ email })).toEqual([]);
  expect((await signIn(app.services, { ...signInBrowser(email), password: OLD_PASSWORD })).kind).toBe("active");
  const user = await app.services.identity.getUser(email);
  expect(await newEvents(user.sub, 0)).toContainEqual({
    type: "member.created",
    data: { email, via: "legacy-migration" },
  });
});

test("a password change cut off after Cognito: the repair ends the sessions once, the new password's sign-in announces it", async () => {
  const member = await signedInMember(app.services, "change-cut", browser);
  const after = await lastSequence(member.sub);
  const change = passwordChangeOf(member);
  await cutOff(member, () => changePassword(app.services, change));
  expect(await newEvents(member.sub, after)).toEqual([]);
  expect(await notesOf(member)).toEqual([{ kind: "password-change" }]);

  // Unsettled past any request: every session ends, once.
  expect((await repair()).sessionsEnded).toBe(1);
  expect((await repair()).sessionsEnded).toBe(0);
  const ended = await newEvents(member.sub, after);
  expect(ended).toEqual([
    { type: "session.revoked", data: { sid: expect.any(String), reason: "password-unconfirmed" } },
  ]);

  // The old password is refused by Cognito; the new one signs in and proves the change.
  await expect(signInMember(app.services, member.email, browser)).rejects.toThrow();
  const again = await signInMember(app.services, member.email, { ...browser, password: NEW_PASSWORD });
  await signInMember(app.services, member.email, { ...browser, password: NEW_PASSWORD });
  const events = await newEvents(member.sub, after + ended.length);
  expect(events.filter((event) => event.type.startsWith("member."))).toEqual([
    { type: "member.password_changed", data: { via: "change" } },
  ]);
  expect(await mailsOf(member.email, "passwordChanged")).toHaveLength(1);
  expect(await notesOf(member)).toEqual([]);
  // The sign-in that settled it is live.
  const [session] = await app.db.select().from(memberSessions).where(eq(memberSessions.id, again.sessionId));
  expect(session!.revokedAt).toBeNull();
});

test("a password change left unconfirmed that Cognito never made: the old password's sign-in drops it, announcing nothing", async () => {
  const member = await signedInMember(app.services, "change-never", browser);
  const after = await lastSequence(member.sub);
  // ChangePassword never reaches Cognito (every attempt given up), and the sign-in that would tell goes unanswered.
  await setFault(endpoint(), { mode: "slow", delayMs: 600_000, operations: ["ChangePassword"] });
  const changed = changePassword(app.services, passwordChangeOf(member));
  try {
    // The first ChangePassword has arrived (the current password was checked before it): from now on its retry and
    // the checking sign-in go unanswered too.
    await expect.poll(async () => (await getFault(endpoint())).applied, { interval: 50 }).toBe(1);
    await setFault(endpoint(), { mode: "slow", delayMs: 600_000, operations: ["ChangePassword", "AdminInitiateAuth"] });
    await expect(changed).rejects.toMatchObject({ code: "passwordChangeUnconfirmed" });
  } finally {
    await resetHarness(endpoint());
  }
  expect(await notesOf(member)).toEqual([{ kind: "password-change" }]);

  // So soon, the change may still be under way in another browser: the old password proves nothing yet.
  await signInMember(app.services, member.email, browser);
  expect(await notesOf(member)).toEqual([{ kind: "password-change" }]);
  await ageNotesPastSettling(member);
  await signInMember(app.services, member.email, browser);
  expect(await notesOf(member)).toEqual([]);
  expect((await newEvents(member.sub, after)).filter((event) => event.type !== "session.created")).toEqual([]);
  expect(await mailsOf(member.email, "passwordChanged")).toEqual([]);
}, 60_000);

test("a password reset cut off after Cognito is announced once, at the new password's sign-in", async () => {
  const member = await signedInMember(app.services, "reset-cut", browser);
  const after = await lastSequence(member.sub);
  await requestPasswordReset(app.services, member.email, "ja");
  const [mail] = await codeMailsTo(app.dataDir, member.email);
  await cutOff(member, () =>
    confirmPasswordReset(app.services, { email: member.email, code: mail!.code!, password: NEW_PASSWORD, ...browser }),
  );
  expect(await newEvents(member.sub, after)).toEqual([]);

  await signInMember(app.services, member.email, { ...browser, password: NEW_PASSWORD });
  const events = await newEvents(member.sub, after);
  expect(events.filter((event) => event.type.startsWith("member."))).toEqual([
    { type: "member.password_changed", data: { via: "reset" } },
  ]);
  expect(events).toContainEqual({
    type: "session.revoked",
    data: { sid: expect.any(String), reason: "password-reset" },
  });
  expect(await mailsOf(member.email, "passwordReset")).toHaveLength(1);
  expect(await notesOf(member)).toEqual([]);
});

test("an invited member's first password cut off after Cognito is announced once, at their next sign-in", async () => {
  const email = `invited-cut-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const sub = await app.services.identity.inviteUser({ email, attributes: { locale: "ja" } });
  const [invitation] = await codeMailsTo(app.dataDir, email);
  const first = await signIn(app.services, { ...signInBrowser(email), password: invitation!.code! });
  if (first.kind !== "newPasswordRequired") throw new Error(`sign-in ended as ${first.kind}`);
  await cutOff({ sub }, () =>
    completeFirstSignIn(app.services, { ...signInBrowser(email), ...first, newPassword: NEW_PASSWORD }),
  );
  expect(await newEvents(sub, 0)).toEqual([]);
  // Nobody signed in before a first password: the repair has no sessions to end.
  expect((await repair()).sessionsEnded).toBe(0);

  await signInMember(app.services, email, { ...browser, password: NEW_PASSWORD });
  await signInMember(app.services, email, { ...browser, password: NEW_PASSWORD });
  const events = await newEvents(sub, 0);
  expect(events.filter((event) => event.type === "member.password_changed")).toEqual([
    { type: "member.password_changed", data: { via: "first-sign-in" } },
  ]);
  expect(await notesOf({ email })).toEqual([]);
});

test("an invited member's first password without an answer, chosen again, is announced once", async () => {
  const email = `invited-again-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const sub = await app.services.identity.inviteUser({ email, attributes: { locale: "ja" } });
  const [invitation] = await codeMailsTo(app.dataDir, email);
  const first = await signIn(app.services, { ...signInBrowser(email), password: invitation!.code! });
  if (first.kind !== "newPasswordRequired") throw new Error(`sign-in ended as ${first.kind}`);
  const choose = () =>
    completeFirstSignIn(app.services, { ...signInBrowser(email), ...first, newPassword: NEW_PASSWORD });
  await setFault(endpoint(), { mode: "fail", operations: ["AdminRespondToAuthChallenge"], times: 10 });
  try {
    await expect(choose()).rejects.toMatchObject({ code: "unavailable" });
  } finally {
    await resetHarness(endpoint());
  }
  expect(await notesOf({ email })).toEqual([{ kind: "first-password" }]);
  await choose();
  // The recorded password settles the earlier note of the same choice: the next sign-in announces nothing more.
  expect(await notesOf({ email })).toEqual([]);
  await signInMember(app.services, email, { ...browser, password: NEW_PASSWORD });
  expect((await newEvents(sub, 0)).filter((event) => event.type === "member.password_changed")).toEqual([
    { type: "member.password_changed", data: { via: "first-sign-in" } },
  ]);
});

test("a new password no sign-in settles is forgotten after its retention, announcing nothing", async () => {
  const member = await signedInMember(app.services, "change-expired", browser);
  await cutOff(member, () => changePassword(app.services, passwordChangeOf(member)));
  const after = await lastSequence(member.sub);
  const DAY_MS = 24 * 60 * 60 * 1000;
  expect((await repair(new Date(Date.now() + (UNRESOLVED_PASSWORD_RETENTION_DAYS + 1) * DAY_MS))).expired).toBe(1);
  expect(await notesOf(member)).toEqual([]);
  await signInMember(app.services, member.email, { ...browser, password: NEW_PASSWORD });
  expect((await newEvents(member.sub, after)).filter((event) => event.type.startsWith("member."))).toEqual([]);
});

test("the normal paths of a password change, a reset and a first password leave no note", async () => {
  const member = await signedInMember(app.services, "change-normal", browser);
  await changePassword(app.services, passwordChangeOf(member));
  expect(await notesOf(member)).toEqual([]);
  await requestPasswordReset(app.services, member.email, "ja");
  const [mail] = await codeMailsTo(app.dataDir, member.email);
  const reset = { email: member.email, password: "willow-harbor-lantern-58", ...browser };
  await expect(confirmPasswordReset(app.services, { ...reset, code: "000000" })).rejects.toThrow();
  expect(await notesOf(member)).toEqual([]);
  await confirmPasswordReset(app.services, { ...reset, code: mail!.code! });
  expect(await notesOf(member)).toEqual([]);

  const email = `invited-normal-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.inviteUser({ email, attributes: { locale: "ja" } });
  const [invitation] = await codeMailsTo(app.dataDir, email);
  const first = await signIn(app.services, { ...signInBrowser(email), password: invitation!.code! });
  if (first.kind !== "newPasswordRequired") throw new Error(`sign-in ended as ${first.kind}`);
  await completeFirstSignIn(app.services, { ...signInBrowser(email), ...first, newPassword: NEW_PASSWORD });
  expect(await notesOf({ email })).toEqual([]);
});
