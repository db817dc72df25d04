import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import type { DatabaseHandle } from "~db/client.server";
import { emailChangeTokens, memberProfiles, memberSessions, memberSignOuts } from "~db/schema";
import { confirmEmailChange, hashEmailChangeToken, requestEmailChange } from "~/domain/account/email-change.server";
import { parseConfig } from "~/config.server";
import { startSession } from "~/domain/sessions/device-admission.server";
import { issuedAtOf } from "~/domain/account/sign-in.server";
import { findLiveSession } from "~/domain/sessions/page-sessions.server";
import { revokeOwedRefreshTokens, revokeRefreshTokens } from "~/domain/sessions/refresh-tokens.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { cancelMembership, finishOwedCognitoDeletions } from "~/domain/account/withdrawal.server";
import { DomainError, withDomainErrors } from "~/domain/domain-error.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import { systemClock } from "~/services.server";
import type { StandIns } from "~/server/start-server";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { resetHarness, setFault } from "../../support/stand-in-faults";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

/**
 * Cognito and the database stay consistent when either fails mid-change (app/domain/README.md: cancellation,
 * e-mail change, the purge), on the real parts: the Cognito stand-in through the AWS SDK (its harness makes it
 * fail), the SMTP capture, and PGlite (or PostgreSQL in CI).
 */
const temp = makeTempDir("two-systems");
let stack: StandIns;
let handle: DatabaseHandle;
const SECRETS = ["s".repeat(32)];
const PASSWORD = "correct-horse-battery";
const DEVICE = { deviceName: "Windows 11", browser: "Firefox 140" };
/** Tests need not wait out the production pauses between revocation tries. */
const QUICK_RETRIES = [1, 1];

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openTestDatabase(temp.dir);
  await handle.migrate();
});

afterEach(async () => {
  await resetHarness(stack.env.COGNITO_ENDPOINT!);
});

afterAll(async () => {
  await handle?.close();
  await stack?.stop();
  temp.remove();
});

/** What the e-mail change verbs need, on this test's stand-in and SMTP capture. */
function emailChangeDeps() {
  return {
    db: handle.db,
    identity: identity(),
    mailer: withDomainErrors(createMailer({ smtpUrl: stack.env.SMTP_URL!, mailFrom: "ID <no-reply@localhost>" })),
    mailTexts: i18nextOutsideRequests,
    confirmationLink: emailUpdateLinkFor("http://localhost:3999"),
  };
}

function identity() {
  return withDomainErrors(createIdentityProvider(cognitoConfigOf(stack)));
}

/** The services the session verbs take, with this file's secrets and a device limit of three. */
function services(identityProvider = identity()) {
  return {
    db: handle.db,
    identity: identityProvider,
    config: { ...parseConfig({}), sessionSecrets: SECRETS, deviceLimit: 3 },
    clock: systemClock,
  };
}

const fault = (operation: string, times = 100) =>
  setFault(stack.env.COGNITO_ENDPOINT!, { mode: "fail", operations: [operation], times });

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await identity().createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  return { sub: (await identity().getUser(email)).sub, email };
}

/** A real sign-in at the stand-in recorded as a session of this browser. */
async function signIn(member: { sub: string; email: string }, deviceKey = crypto.randomUUID()) {
  const tokens = await identity().signIn({ email: member.email, password: PASSWORD });
  const session = await startSession(services(), {
    sub: member.sub,
    email: member.email,
    deviceKey,
    device: DEVICE,
    refreshToken: tokens.refreshToken!,
    originJti: null,
    issuedAt: issuedAtOf(tokens.accessToken),
    overLimit: "hold",
    clientIp: "192.0.2.1",
    passwordTyped: true,
  });
  return { ...session, refreshToken: tokens.refreshToken! };
}

async function profileOf(sub: string) {
  const [row] = await handle.db.select().from(memberProfiles).where(eq(memberProfiles.sub, sub));
  return row;
}

async function cognitoHas(email: string) {
  return identity()
    .getUser(email)
    .then(() => true)
    .catch((error: unknown) => {
      if (error instanceof DomainError && error.code === "userNotFound") return false;
      throw error;
    });
}

const cancel = (member: { sub: string; email: string }, deps = { identity: identity() }) =>
  cancelMembership(services(deps.identity), {
    sub: member.sub,
    email: member.email,
    password: PASSWORD,
    reason: "other",
    detail: "理由",
    locale: "ja",
  });

test("a Cognito delete that timed out after succeeding leaves the cancellation recorded; the retry counts 'not found' as done", async () => {
  const member = await createMember("cancel-timeout");
  const session = await signIn(member);
  const real = identity();
  // The delete reaches Cognito, but its answer is lost (a time-out): the app sees "unavailable".
  const lossy = {
    ...real,
    deleteUser: async (username: string) => {
      await real.deleteUser(username);
      throw new DomainError("unavailable");
    },
  };

  const result = await cancel(member, { identity: lossy });
  expect(result).toMatchObject({ kind: "cancelled", endedSessions: 1, cognitoDeleted: false });
  expect(await cognitoHas(member.email)).toBe(false);
  // The database agrees that the member is gone: cancelled, signed out, and the deletion noted as owed.
  expect((await profileOf(member.sub))?.cancelledAt).not.toBeNull();
  expect((await profileOf(member.sub))?.cognitoDeletedAt).toBeNull();
  expect(await findLiveSession(handle.db, session.sessionId)).toBeNull();

  // The purge job's retry: Cognito no longer knows the user, which is what was wanted.
  expect(await finishOwedCognitoDeletions({ db: handle.db, identity: real })).toMatchObject({ owed: 0 });
  expect((await profileOf(member.sub))?.cognitoDeletedAt).not.toBeNull();
});

test("Cognito down at the delete: the cancellation holds, the member cannot sign in, and the job deletes the user later", async () => {
  const member = await createMember("cancel-down");
  await signIn(member);
  await fault("AdminDeleteUser");
  expect(await cancel(member)).toMatchObject({ kind: "cancelled", cognitoDeleted: false });
  expect(await cognitoHas(member.email)).toBe(true);

  // The Cognito user still exists, so a password sign-in authenticates there, but no session starts.
  await expect(signIn(member)).rejects.toMatchObject({ code: "invalidCredentials" });

  // A repeated submission (double submit, or the member trying again) changes nothing and stores no second reason.
  await expect(cancel(member)).resolves.toMatchObject({ kind: "cancelled", endedSessions: 0 });

  await resetHarness(stack.env.COGNITO_ENDPOINT!);
  await finishOwedCognitoDeletions({ db: handle.db, identity: identity() });
  expect(await cognitoHas(member.email)).toBe(false);
  expect((await profileOf(member.sub))?.cognitoDeletedAt).not.toBeNull();
});

test.each([
  // The password check is a sign-in: its throttling is the sign-in's own code.
  ["throttling", { mode: "throttle" } as const, "signInThrottled"],
  ["down", { mode: "fail" } as const, "unavailable"],
])(
  "Cognito %s at the cancellation's password check: an error to show, and nothing changed anywhere",
  async (_, settings, code) => {
    const member = await createMember("cancel-check");
    const session = await signIn(member);
    await setFault(stack.env.COGNITO_ENDPOINT!, { ...settings, operations: ["AdminInitiateAuth"] });
    await expect(cancel(member)).rejects.toMatchObject({ code });
    await resetHarness(stack.env.COGNITO_ENDPOINT!);
    expect((await profileOf(member.sub))?.cancelledAt ?? null).toBeNull();
    expect(await findLiveSession(handle.db, session.sessionId)).not.toBeNull();
    expect(await cognitoHas(member.email)).toBe(true);
  },
);

test("a sign-in that authenticated before a cancellation committed cannot record a live session afterwards", async () => {
  const member = await createMember("cancel-race");
  const tokens = await identity().signIn({ email: member.email, password: PASSWORD });
  await cancel(member);
  await expect(
    startSession(services(), {
      sub: member.sub,
      email: member.email,
      deviceKey: "late-browser",
      device: DEVICE,
      refreshToken: tokens.refreshToken!,
      originJti: null,
      issuedAt: issuedAtOf(tokens.accessToken),
      overLimit: "hold",
      clientIp: "192.0.2.1",
      passwordTyped: true,
    }),
  ).rejects.toMatchObject({ code: "invalidCredentials" });
  const rows = await handle.db.select().from(memberSessions).where(eq(memberSessions.sub, member.sub));
  expect(rows.filter((row) => row.revokedAt === null)).toEqual([]);
});

test("a password reset ends every session of the member and signs out everywhere at Cognito", async () => {
  const member = await createMember("reset");
  const first = await signIn(member);
  const second = await signIn(member);
  const deps = services();
  await requestPasswordReset(deps, member.email, "ja");
  const entries = await listMailboxEntries(mailboxDirectory(temp.dir));
  const code = entries.find((entry) => entry.kind === "code" && entry.to.includes(member.email))?.code;
  expect(code).toBeTruthy();

  await confirmPasswordReset(deps, {
    email: member.email,
    code: code!,
    password: "a-brand-new-password-1",
    clientIp: "192.0.2.1",
    locale: "ja",
  });

  expect(await findLiveSession(handle.db, first.sessionId)).toBeNull();
  expect(await findLiveSession(handle.db, second.sessionId)).toBeNull();
  expect(await handle.db.select().from(memberSignOuts).where(eq(memberSignOuts.sub, member.sub))).toHaveLength(1);
  // Signed out at Cognito too: the sessions' refresh tokens no longer work.
  await expect(identity().refresh(first.refreshToken)).rejects.toMatchObject({ code: "invalidCredentials" });
});

test("a revocation Cognito cannot confirm is retried, kept as owed, and finished by the purge job", async () => {
  const member = await createMember("revoke");
  const transient = await signIn(member);
  const lasting = await signIn(member);
  const rows = await handle.db
    .update(memberSessions)
    .set({ revokedAt: new Date() })
    .where(eq(memberSessions.sub, member.sub))
    .returning();
  const encryptedOf = (sessionId: string) => rows.find((row) => row.id === sessionId)!.refreshTokenEncrypted;
  const revocationOf = async (sessionId: string) =>
    (await handle.db.select().from(memberSessions).where(eq(memberSessions.id, sessionId)))[0]?.refreshTokenRevokedAt;
  const deps = {
    db: handle.db,
    identity: identity(),
    config: { sessionSecrets: SECRETS },
    retryDelaysMs: QUICK_RETRIES,
  };

  // Cognito fails for a moment, then answers: the retry gets the revocation through.
  // Three failing requests: the SDK's own two tries and our second try's first; our second try gets through.
  await fault("RevokeToken", 3);
  await revokeRefreshTokens(deps, [encryptedOf(transient.sessionId)]);
  expect(await revocationOf(transient.sessionId)).not.toBeNull();

  // Down for longer than the retries: owed on the row, then done by the job once Cognito is back.
  await fault("RevokeToken");
  await revokeRefreshTokens(deps, [encryptedOf(lasting.sessionId)]);
  expect(await revocationOf(lasting.sessionId)).toBeNull();
  await resetHarness(stack.env.COGNITO_ENDPOINT!);
  await revokeOwedRefreshTokens(deps);
  expect(await revocationOf(lasting.sessionId)).not.toBeNull();
  await expect(identity().refresh(lasting.refreshToken)).rejects.toMatchObject({ code: "invalidCredentials" });
});

test("an e-mail change whose database step fails after Cognito changed leaves no stale session e-mail; the link finishes it", async () => {
  const member = await createMember("email-fault");
  const session = await signIn(member);
  const deps = emailChangeDeps();
  const newEmail = `moved-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await requestEmailChange(deps, { sub: member.sub, currentEmail: member.email, newEmail, locale: "ja" });
  const mail = (await listMailboxEntries(mailboxDirectory(temp.dir))).find(
    (entry) => entry.kind === "mail" && entry.to.includes(newEmail),
  );
  const token = /email-update\/([\w-]+)\//.exec(mail?.text ?? "")?.[1];
  expect(token).toBeTruthy();

  // The database refuses the sessions' update (a real failure inside PostgreSQL, after Cognito answered).
  await handle.db.execute(sql`create or replace function refuse_session_email() returns trigger language plpgsql as
    $$ begin raise exception 'injected failure'; end $$`);
  await handle.db.execute(sql`create trigger refuse_session_email before update of email on member_sessions
    for each row execute function refuse_session_email()`);
  try {
    await expect(confirmEmailChange(deps, { clientIp: "192.0.2.1", token: token! })).rejects.toThrow();
  } finally {
    await handle.db.execute(sql`drop trigger refuse_session_email on member_sessions`);
  }
  // Cognito has the new address already; the link was not used up, so opening it again finishes the change.
  expect((await identity().getUser(member.sub)).email).toBe(newEmail);
  const [row] = await handle.db
    .select()
    .from(emailChangeTokens)
    .where(eq(emailChangeTokens.tokenHash, hashEmailChangeToken(token!)));
  expect(row?.usedAt).toBeNull();
  await expect(confirmEmailChange(deps, { clientIp: "192.0.2.1", token: token! })).resolves.toMatchObject({
    kind: "changed",
    newEmail,
  });
  expect((await findLiveSession(handle.db, session.sessionId))?.email).toBe(newEmail);
});

test("a double submit of the e-mail change confirm changes the address once; of the request, leaves one working link", async () => {
  const member = await createMember("email-double");
  const deps = emailChangeDeps();
  const newEmail = `double-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const request = () =>
    requestEmailChange(deps, { sub: member.sub, currentEmail: member.email, newEmail, locale: "ja" });
  await Promise.all([request(), request()]);
  const unused = await handle.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub));
  expect(unused.filter((row) => row.usedAt === null)).toHaveLength(1);

  const tokens = (await listMailboxEntries(mailboxDirectory(temp.dir)))
    .filter((entry) => entry.kind === "mail" && entry.to.includes(newEmail))
    .map((entry) => /email-update\/([\w-]+)\//.exec(entry.text ?? "")?.[1] ?? "");
  const live = tokens.find((token) => hashEmailChangeToken(token) === unused[0]!.tokenHash)!;
  const outcomes = await Promise.all([
    confirmEmailChange(deps, { clientIp: "192.0.2.1", token: live }),
    confirmEmailChange(deps, { clientIp: "192.0.2.1", token: live }),
  ]);
  expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["changed", "expired"]);
});
