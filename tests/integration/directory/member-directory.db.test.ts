import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { memberDirectory } from "~db/schema";
import { parseConfig } from "~/config.server";
import { ProfileSchema } from "~/domain/forms/profile-schemas";
import { AccountInfoSchema } from "~/domain/forms/sign-up-schemas";
import { confirmEmailChange, requestEmailChange } from "~/domain/account/email-change.server";
import { importLegacyRows } from "~/domain/account/legacy-accounts.server";
import {
  type DirectoryEntry,
  recordingDirectoryWrites,
  refreshDirectoryEntry,
} from "~/domain/directory/member-directory.server";
import { updateProfile } from "~/domain/account/profile.server";
import { signIn } from "~/domain/account/sign-in.server";
import { confirmSignUp, saveAccountInfo, startSignUp } from "~/domain/account/sign-up.server";
import { cancelMembership } from "~/domain/account/withdrawal.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";
import type { StandIns } from "~/server/start-server";
import { systemClock } from "~/services.server";
import { createDomainIdentity } from "~/composition-root.server";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";

// The real parts: the Cognito stand-in over HTTP through the AWS SDK, the SMTP capture, PGlite (or PostgreSQL in CI).
const temp = makeTempDir("member-directory");
let stack: StandIns;
let handle: DatabaseHandle;
const PASSWORD = "correct-horse-battery";

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openTestDatabase(temp.dir);
  await handle.migrate();
}, 150_000);

afterAll(async () => {
  await handle?.close();
  await stack?.stop();
  temp.remove();
});

function services() {
  return {
    db: handle.db,
    identity: createDomainIdentity(cognitoConfigOf(stack), handle.db),
    mailer: withDomainErrors(createMailer({ smtpUrl: stack.env.SMTP_URL!, mailFrom: "ID <no-reply@localhost>" })),
    config: { ...parseConfig({}), sessionSecrets: ["s".repeat(32)] },
    clock: systemClock,
    confirmationLink: emailUpdateLinkFor("http://localhost:3999"),
    mailTexts: i18nextOutsideRequests,
  };
}

const uniqueEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;

async function directoryRow(sub: string): Promise<DirectoryEntry | undefined> {
  return (await handle.db.select().from(memberDirectory).where(eq(memberDirectory.sub, sub)))[0];
}

/** The app's directory writes run off the member's path, so the row is awaited; then Cognito must agree with it. */
async function expectDirectoryRow(sub: string, expected: Partial<DirectoryEntry>) {
  await expect.poll(() => directoryRow(sub), { timeout: 10_000 }).toMatchObject(expected);
  const refreshed = await refreshDirectoryEntry(services(), sub);
  expect(refreshed.changedFields).toEqual([]);
}

async function latestCodeFor(email: string): Promise<string> {
  const entries = await listMailboxEntries(mailboxDirectory(temp.dir));
  const code = entries.find((entry) => entry.kind === "code" && entry.to.includes(email) && entry.code)?.code;
  if (!code) throw new Error(`no code was mailed to ${email}`);
  return code;
}

async function signedUpMember(label: string) {
  const email = uniqueEmail(label);
  const { identity } = services();
  const { sub } = await startSignUp(identity, { email, password: PASSWORD, locale: "en" });
  await confirmSignUp(identity, { email, sub, code: await latestCodeFor(email) });
  return { sub, email };
}

test("a sign-up is in the directory from its first step, and confirmed and named by the next ones", async () => {
  const email = uniqueEmail("sign-up");
  const { identity } = services();
  const { sub } = await startSignUp(identity, { email, password: PASSWORD, locale: "en" });
  await expectDirectoryRow(sub, {
    username: sub,
    email,
    emailVerified: false,
    cognitoStatus: "UNCONFIRMED",
    memberStatus: "unconfirmed",
    locale: "en",
    enabled: true,
    missingFromCognitoAt: null,
  });

  await confirmSignUp(identity, { email, sub, code: await latestCodeFor(email) });
  await expectDirectoryRow(sub, { cognitoStatus: "CONFIRMED", emailVerified: true, memberStatus: "active" });

  await saveAccountInfo(services(), {
    sub,
    referrerService: "data",
    info: AccountInfoSchema.parse({
      familyName: "山田",
      givenName: "太郎",
      birthYear: 1980,
      country: "JP",
      prefecture: "東京都",
      occupation: "architect",
      organization: "山田設計",
      preferredLanguage: "ja",
      q1: "magazine",
      q2: ["search"],
      q3: ["web"],
    }),
  });
  await expectDirectoryRow(sub, { familyName: "山田", givenName: "太郎", locale: "ja", referrerService: "data" });
});

test("a sign-up started again for an unconfirmed address leaves the first user missing and the second one present", async () => {
  const email = uniqueEmail("again");
  const { identity } = services();
  const first = await startSignUp(identity, { email, password: PASSWORD, locale: "ja" });
  await expect.poll(() => directoryRow(first.sub)).toMatchObject({ cognitoStatus: "UNCONFIRMED" });
  const second = await startSignUp(identity, { email, password: `${PASSWORD}-2`, locale: "ja" });
  expect(second.sub).not.toBe(first.sub);
  await expect.poll(async () => (await directoryRow(first.sub))?.missingFromCognitoAt).toBeInstanceOf(Date);
  await expectDirectoryRow(second.sub, { email, cognitoStatus: "UNCONFIRMED", missingFromCognitoAt: null });
});

test("a profile edit writes the names and the language into the directory", async () => {
  const member = await signedUpMember("profile");
  await updateProfile(services(), {
    sub: member.sub,
    profile: ProfileSchema.parse({
      familyName: "Smith",
      givenName: "Anna",
      birthYear: 1990,
      country: "GB",
      prefecture: "London",
      occupation: "academic",
      organization: "University",
      preferredLanguage: "en",
    }),
  });
  await expectDirectoryRow(member.sub, { familyName: "Smith", givenName: "Anna", locale: "en" });
});

test("a confirmed e-mail change moves the directory row to the new address, verified", async () => {
  const member = await signedUpMember("change");
  const newEmail = uniqueEmail("changed");
  await requestEmailChange(services(), { sub: member.sub, currentEmail: member.email, newEmail, locale: "en" });
  const mail = (await listMailboxEntries(mailboxDirectory(temp.dir))).find(
    (entry) => entry.kind === "mail" && entry.to.includes(newEmail),
  );
  const token = /\/email-update\/([^/\s]+)\//.exec(mail?.text ?? "")?.[1];
  expect(token).toBeTruthy();
  // The confirmation writes Cognito inside a database transaction: the directory write must not wait on it.
  expect(await confirmEmailChange(services(), { clientIp: "192.0.2.1", token: token! })).toMatchObject({
    kind: "changed",
  });
  await expectDirectoryRow(member.sub, { email: newEmail, emailVerified: true });
});

test("a cancellation marks the row missing from Cognito and cancelled", async () => {
  const member = await signedUpMember("cancel");
  await expect.poll(() => directoryRow(member.sub)).toMatchObject({ cognitoStatus: "CONFIRMED" });
  const result = await cancelMembership(services(), {
    sub: member.sub,
    email: member.email,
    password: PASSWORD,
    reason: "price",
    locale: "ja",
  });
  expect(result).toMatchObject({ kind: "cancelled", cognitoDeleted: true });
  await expect
    .poll(() => directoryRow(member.sub))
    .toMatchObject({
      memberStatus: "cancelled",
      missingFromCognitoAt: expect.any(Date),
      cancelledAt: expect.any(Date),
    });
  const refreshed = await refreshDirectoryEntry(services(), member.sub);
  expect(refreshed).toMatchObject({ missing: true, changedFields: [] });
});

test("a legacy member's first sign-in puts the migrated member in the directory, confirmed and marked legacy", async () => {
  const email = uniqueEmail("legacy");
  const password = "old-password-2019";
  await importLegacyRows(handle.db, [
    {
      email,
      passwordHash: bcrypt.hashSync(password, 4),
      profile: { familyName: "旧", givenName: "会員", preferredLanguage: "ja" },
    },
  ]);
  const result = await signIn(services(), {
    email,
    password,
    deviceKey: crypto.randomUUID(),
    userAgent: null,
    clientIp: "192.0.2.1",
    locale: "ja",
  });
  expect(result.kind).toBe("active");
  const { sub } = await services().identity.getUser(email);
  await expectDirectoryRow(sub, {
    email,
    emailVerified: true,
    cognitoStatus: "CONFIRMED",
    familyName: "旧",
    givenName: "会員",
    locale: "ja",
    referrerService: "legacy",
    legacyMigratedAt: expect.any(Date),
  });
});

test("disabling and enabling a user is mirrored in the directory's status", async () => {
  const member = await signedUpMember("disable");
  const { identity } = services();
  await identity.disableUser(member.sub);
  await expectDirectoryRow(member.sub, { enabled: false, memberStatus: "disabled" });
  await identity.enableUser(member.sub);
  await expectDirectoryRow(member.sub, { enabled: true, memberStatus: "active" });
});

test("a directory that cannot be written never fails the member's Cognito write", async () => {
  // A database without the directory table: every directory write fails.
  const broken = openDatabase({ dataDir: makeTempDir("member-directory-broken").dir });
  try {
    const identity = withDomainErrors(
      recordingDirectoryWrites(createIdentityProvider(cognitoConfigOf(stack)), broken.db, systemClock),
    );
    const email = uniqueEmail("broken");
    const { sub } = await startSignUp(identity, { email, password: PASSWORD, locale: "ja" });
    expect((await identity.getUser(email)).sub).toBe(sub);
    // The failed directory write is done with (logged), and does not surface to whoever waits for the writes.
    await expect(identity.settleDirectoryWrites()).resolves.toBeUndefined();
  } finally {
    await broken.close();
  }
});

test("a refresh of a sub Cognito never had reports it missing and writes no row", async () => {
  const sub = crypto.randomUUID();
  expect(await refreshDirectoryEntry(services(), sub)).toEqual({
    before: null,
    after: null,
    changedFields: [],
    missing: true,
  });
  expect(await directoryRow(sub)).toBeUndefined();
});
