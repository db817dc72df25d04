import { readFileSync } from "node:fs";
import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import type { DatabaseHandle } from "~db/client.server";
import { legacyCredentials, memberProfiles } from "~db/schema";
import { parseConfig } from "~/config.server";
import { importLegacyRows, parseLegacyCsv } from "~/domain/account/legacy-accounts.server";
import { MAX_LEGACY_BCRYPT_COST, legacyPasswordCheckStats } from "~/domain/account/legacy-password.server";
import { signIn } from "~/domain/account/sign-in.server";
import { confirmSignUp, startSignUp } from "~/domain/account/sign-up.server";
import { COGNITO_MAX_ATTEMPTS } from "~/integrations/cognito/cognito-client.server";
import { DomainError, withDomainErrors } from "~/domain/domain-error.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import type { StandIns } from "~/server/start-server";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { systemClock } from "~/services.server";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { getRequestCounts, resetHarness, resetRequestCounts, setFault } from "../../support/stand-in-faults";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";

// The real parts: the Cognito stand-in over HTTP through the AWS SDK, and PGlite (or PostgreSQL in CI).
const temp = makeTempDir("legacy");
let stack: StandIns;
let handle: DatabaseHandle;

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openTestDatabase(temp.dir);
  await handle.migrate();
  await handle.db.delete(legacyCredentials);
});

afterEach(async () => {
  await resetHarness(stack.env.COGNITO_ENDPOINT!);
});

afterAll(async () => {
  await handle.close();
  await stack.stop();
  temp.remove();
});

function deps() {
  return {
    db: handle.db,
    identity: withDomainErrors(createIdentityProvider(cognitoConfigOf(stack))),
    config: { ...parseConfig({}), deviceLimit: 3, sessionSecrets: ["s".repeat(32)] },
    clock: systemClock,
  };
}

const signInAs = (email: string, password: string) =>
  signIn(deps(), {
    email,
    password,
    deviceKey: crypto.randomUUID(),
    userAgent: null,
    clientIp: "192.0.2.1",
    locale: "ja",
  });

test("the import reports bad rows by line and field and loads the good ones, and can be run again", async () => {
  const csv = `${readFileSync("tests/fixtures/legacy-accounts.csv", "utf8")}not-an-email,$2b$10$short,,,,,,,,\n`;
  const { rows, errors } = parseLegacyCsv(csv);
  expect(rows.map((row) => row.email)).toEqual(["legacy-js-on@example.jp", "legacy-js-off@example.jp"]);
  expect(errors.map((error) => `${error.line}:${error.field}`)).toEqual(["4:email", "4:password_hash"]);
  expect(await importLegacyRows(handle.db, rows)).toBe(2);
  expect(await importLegacyRows(handle.db, rows)).toBe(2);
  expect(await handle.db.select().from(legacyCredentials)).toHaveLength(2);
});

test("a legacy member's first sign-in moves the account to Cognito with the same password and profile", async () => {
  const wrong = await signInAs("legacy-js-on@example.jp", "not-the-old-password").catch((error: unknown) => error);
  expect(wrong).toBeInstanceOf(DomainError);
  expect(messageKeyOf(domainErrorOf(wrong))).toBe("toasts:loginFailed");

  const first = await signInAs("Legacy-JS-On@example.jp", "old-password-2019");
  expect(first.kind).toBe("active");
  const [legacy] = await handle.db
    .select()
    .from(legacyCredentials)
    .where(eq(legacyCredentials.email, "legacy-js-on@example.jp"));
  expect(legacy?.migratedAt).toBeInstanceOf(Date);
  const [profile] = await handle.db.select().from(memberProfiles).where(eq(memberProfiles.sub, legacy!.migratedSub!));
  expect(profile).toMatchObject({ familyName: "旧", givenName: "会員", birthYear: 1975, organization: "旧設計事務所" });

  // From now on Cognito knows the member: sign-in no longer needs the legacy table.
  await handle.db.delete(legacyCredentials);
  expect((await signInAs("legacy-js-on@example.jp", "old-password-2019")).kind).toBe("active");
});

// ---- a legacy account cannot be trapped, and a failed migration can be retried --------------------------------

const OLD_PASSWORD = "old-password-2019";

/** A legacy account of its own for one test (cost 4: the tests need the behaviour, not the slowness). */
async function importLegacyMember(label: string, password = OLD_PASSWORD) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await importLegacyRows(handle.db, [
    {
      email,
      passwordHash: bcrypt.hashSync(password, 4),
      profile: { familyName: "旧", givenName: label, preferredLanguage: "ja" },
    },
  ]);
  return email;
}

const legacyRowOf = async (email: string) =>
  (await handle.db.select().from(legacyCredentials).where(eq(legacyCredentials.email, email)))[0];

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the sign-in to fail");
    },
    (error: unknown) => error as DomainError,
  );

async function latestCodeFor(email: string): Promise<string> {
  const entries = await listMailboxEntries(mailboxDirectory(temp.dir));
  const code = entries.find((entry) => entry.kind === "code" && entry.to.includes(email) && entry.code)?.code;
  if (!code) throw new Error(`no code was mailed to ${email}`);
  return code;
}

test("someone's unconfirmed sign-up of a legacy address neither locks the member out nor ever owns the account", async () => {
  const email = await importLegacyMember("trap");
  const identity = deps().identity;
  const squatter = await startSignUp(identity, { email, password: "squatters-password", locale: "ja" });

  const signedIn = await signInAs(email, OLD_PASSWORD);
  expect(signedIn.kind).toBe("active");
  const member = await identity.getUser(email);
  expect(member.confirmed).toBe(true);
  expect(member.sub).not.toBe(squatter.sub);
  expect((await legacyRowOf(email))?.migratedSub).toBe(member.sub);
  const [profile] = await handle.db.select().from(memberProfiles).where(eq(memberProfiles.sub, member.sub));
  expect(profile).toMatchObject({ familyName: "旧", givenName: "trap" });

  // The code the squatter's sign-up mailed to the member confirms nothing from the squatter's flow, and their
  // password opens nothing.
  const code = await latestCodeFor(email);
  expect((await failureOf(confirmSignUp(identity, { email, sub: squatter.sub, code }))).code).toBe("codeMismatch");
  expect(messageKeyOf(domainErrorOf(await failureOf(signInAs(email, "squatters-password"))))).toBe(
    "toasts:loginFailed",
  );
  expect((await signInAs(email, OLD_PASSWORD)).kind).toBe("active");
});

test("an address that signed up again after 2021 keeps its own password: the old one moves nothing", async () => {
  const email = await importLegacyMember("re-registered");
  const identity = deps().identity;
  const { sub } = await startSignUp(identity, { email, password: "new-password-2026", locale: "ja" });
  await confirmSignUp(identity, { email, sub, code: await latestCodeFor(email) });

  expect(messageKeyOf(domainErrorOf(await failureOf(signInAs(email, OLD_PASSWORD))))).toBe("toasts:loginFailed");
  expect((await identity.getUser(email)).sub).toBe(sub);
  expect((await legacyRowOf(email))?.migratedAt).toBeNull();
  expect((await signInAs(email, "new-password-2026")).kind).toBe("active");
});

test("AdminSetUserPassword failing: a clear message, no user left behind, and the next sign-in migrates", async () => {
  const email = await importLegacyMember("set-password-fails");
  const endpoint = stack.env.COGNITO_ENDPOINT!;
  // Every attempt of the SDK's one call fails (it retries once).
  await setFault(endpoint, { mode: "fail", operations: ["AdminSetUserPassword"], times: COGNITO_MAX_ATTEMPTS });

  const failed = await failureOf(signInAs(email, OLD_PASSWORD));
  expect(failed).toBeInstanceOf(DomainError);
  expect(messageKeyOf(domainErrorOf(failed))).toBe("toasts:identityUnavailable");
  expect(await deps().identity.findUser(email)).toBeNull();
  expect((await legacyRowOf(email))?.migratedAt).toBeNull();

  expect((await signInAs(email, OLD_PASSWORD)).kind).toBe("active");
  expect((await legacyRowOf(email))?.migratedAt).toBeInstanceOf(Date);
});

test("when the undo fails as well, the half-made user is recognised and replaced on the next sign-in", async () => {
  const email = await importLegacyMember("undo-fails");
  const endpoint = stack.env.COGNITO_ENDPOINT!;
  await setFault(endpoint, {
    mode: "fail",
    operations: ["AdminSetUserPassword", "AdminDeleteUser"],
    times: 2 * COGNITO_MAX_ATTEMPTS,
  });
  expect(messageKeyOf(domainErrorOf(await failureOf(signInAs(email, OLD_PASSWORD))))).toBe(
    "toasts:identityUnavailable",
  );
  const halfMade = await deps().identity.findUser(email);
  expect(halfMade?.status).toBe("FORCE_CHANGE_PASSWORD");
  expect((await legacyRowOf(email))?.migratedSub).toBe(halfMade?.sub);
  await resetHarness(endpoint);

  expect((await signInAs(email, OLD_PASSWORD)).kind).toBe("active");
  const member = await deps().identity.getUser(email);
  expect(member.confirmed).toBe(true);
  expect((await legacyRowOf(email))?.migratedSub).toBe(member.sub);
});

test("two first sign-ins at once (a double submit): both get in, and the account moves over once", async () => {
  const email = await importLegacyMember("double-submit");
  await resetRequestCounts(stack.env.COGNITO_ENDPOINT!);
  const results = await Promise.all([signInAs(email, OLD_PASSWORD), signInAs(email, OLD_PASSWORD)]);
  expect(results.map((result) => result.kind)).toEqual(["active", "active"]);
  const counts = await getRequestCounts(stack.env.COGNITO_ENDPOINT!);
  expect(counts.byOperation.AdminCreateUser).toBe(1);
  expect(counts.byOperation.AdminDeleteUser ?? 0).toBe(0);
  expect((await legacyRowOf(email))?.migratedSub).toBe((await deps().identity.getUser(email)).sub);
});

test("a legacy password the pool's policy refuses stops the migration before any Cognito user is created", async () => {
  const email = await importLegacyMember("short-password", "short7!");
  await resetRequestCounts(stack.env.COGNITO_ENDPOINT!);
  const refused = await failureOf(signInAs(email, "short7!"));
  expect(messageKeyOf(domainErrorOf(refused))).toBe("toasts:legacyPasswordNotCarriedOver");
  const counts = await getRequestCounts(stack.env.COGNITO_ENDPOINT!);
  expect(counts.byOperation.AdminCreateUser ?? 0).toBe(0);
  expect(await deps().identity.findUser(email)).toBeNull();
  // A wrong password still reads as a failed sign-in, revealing nothing.
  expect(messageKeyOf(domainErrorOf(await failureOf(signInAs(email, "short8!!"))))).toBe("toasts:loginFailed");
});

test("every refused sign-in costs one bcrypt compare, legacy row or not", async () => {
  const legacyEmail = await importLegacyMember("timing");
  const memberEmail = `timing-member-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await deps().identity.createConfirmedUser({ email: memberEmail, password: "members-password", attributes: {} });
  const cases = [
    { label: "unknown to Cognito, no legacy row", email: `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp` },
    { label: "unknown to Cognito, legacy row, wrong password", email: legacyEmail },
    { label: "a Cognito member, wrong password", email: memberEmail },
  ];
  for (const { label, email } of cases) {
    const before = legacyPasswordCheckStats().comparesRun;
    expect(messageKeyOf(domainErrorOf(await failureOf(signInAs(email, "wrong-password-1")))), label).toBe(
      "toasts:loginFailed",
    );
    expect(legacyPasswordCheckStats().comparesRun - before, label).toBe(1);
  }
});

test("the import refuses bcrypt hashes above the cost cap, by line and field", async () => {
  const tooCostly = bcrypt.hashSync("x", 4).replace("$04$", `$${MAX_LEGACY_BCRYPT_COST + 1}$`);
  const atCap = bcrypt.hashSync("x", 4).replace("$04$", `$${MAX_LEGACY_BCRYPT_COST}$`);
  const { rows, errors } = parseLegacyCsv(
    `email,password_hash\ncostly@example.jp,${tooCostly}\nat-cap@example.jp,${atCap}\n`,
  );
  expect(rows.map((row) => row.email)).toEqual(["at-cap@example.jp"]);
  expect(errors).toEqual([{ line: 2, field: "password_hash", message: `bcrypt cost above ${MAX_LEGACY_BCRYPT_COST}` }]);
  await expect(
    importLegacyRows(handle.db, [{ email: "costly@example.jp", passwordHash: tooCostly, profile: {} }]),
  ).rejects.toThrow(/cost above/);
  expect(await legacyRowOf("costly@example.jp")).toBeUndefined();
});
