import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { DatabaseHandle } from "~db/client.server";
import { emailChangeTokens, memberSessions } from "~db/schema";
import {
  EMAIL_CHANGE_TTL_MS,
  confirmEmailChange,
  hashEmailChangeToken,
  requestEmailChange,
} from "~/domain/account/email-change.server";
import { type MailboxEntry, listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { DomainError, withDomainErrors } from "~/domain/domain-error.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import type { StandIns } from "~/server/start-server";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

// The real parts: the Cognito stand-in through the AWS SDK, the SMTP capture, and PGlite (or PostgreSQL in CI).
const temp = makeTempDir("email-change");
let stack: StandIns;
let handle: DatabaseHandle;
const ORIGIN = "http://localhost:3999";

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openTestDatabase(temp.dir);
  await handle.migrate();
});

afterAll(async () => {
  await handle?.close();
  await stack?.stop();
  temp.remove();
});

function identity() {
  return withDomainErrors(createIdentityProvider(cognitoConfigOf(stack)));
}

function deps(smtpUrl = stack.env.SMTP_URL!) {
  return {
    db: handle.db,
    identity: identity(),
    mailer: withDomainErrors(createMailer({ smtpUrl, mailFrom: "ID <no-reply@localhost>" })),
    mailTexts: i18nextOutsideRequests,
    confirmationLink: emailUpdateLinkFor(ORIGIN),
  };
}

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await identity().createConfirmedUser({ email, password: "correct-horse-battery", attributes: { locale: "ja" } });
  const user = await identity().getUser(email);
  return { sub: user.sub, email };
}

async function newestMailTo(address: string): Promise<MailboxEntry | undefined> {
  return (await listMailboxEntries(mailboxDirectory(temp.dir))).find(
    (entry) => entry.kind === "mail" && entry.to.includes(address),
  );
}

async function tokenFromMail(address: string): Promise<string> {
  const mail = await newestMailTo(address);
  const match = /\/email-update\/([^/\s]+)\//.exec(mail?.text ?? "");
  if (!match) throw new Error(`no e-mail change link in the mail to ${address}`);
  return match[1]!;
}

test("the link changes the e-mail once: Cognito, the sessions and the old address all hear of it", async () => {
  const member = await createMember("change");
  const newEmail = `new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await handle.db.insert(memberSessions).values({
    sub: member.sub,
    email: member.email,
    deviceKey: "device",
    deviceName: "Linux",
    browser: "Chrome",
    refreshTokenEncrypted: "x",
    activatedAt: new Date(),
  });
  await requestEmailChange(deps(), { sub: member.sub, currentEmail: member.email, newEmail, locale: "en" });

  const mail = await newestMailTo(newEmail);
  expect(mail?.text).toContain(`${ORIGIN}/en/email-update/`);
  const token = await tokenFromMail(newEmail);

  // Stored hashed: the raw token is nowhere in the table.
  const rows = await handle.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub));
  expect(rows).toHaveLength(1);
  expect(rows[0]!.tokenHash).toBe(hashEmailChangeToken(token));
  expect(JSON.stringify(rows)).not.toContain(token);

  const first = await confirmEmailChange(deps(), { clientIp: "192.0.2.1", token, locale: "ja" });
  expect(first).toMatchObject({ kind: "changed", sub: member.sub, newEmail, oldEmail: member.email });
  const user = await identity().getUser(member.sub);
  expect(user.email).toBe(newEmail);
  expect(user.emailVerified).toBe(true);
  const [session] = await handle.db.select().from(memberSessions).where(eq(memberSessions.sub, member.sub));
  expect(session?.email).toBe(newEmail);
  expect((await newestMailTo(member.email))?.text).toContain(newEmail);

  // Single use.
  expect(await confirmEmailChange(deps(), { clientIp: "192.0.2.1", token })).toEqual({ kind: "expired" });
  expect(await confirmEmailChange(deps(), { clientIp: "192.0.2.1", token: "not-a-token" })).toEqual({
    kind: "expired",
  });
});

test("the link expires after an hour", async () => {
  const member = await createMember("expiry");
  const newEmail = `later-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const requestedAt = new Date("2026-01-01T00:00:00Z");
  await requestEmailChange(deps(), {
    sub: member.sub,
    currentEmail: member.email,
    newEmail,
    locale: "ja",
    now: requestedAt,
  });
  const token = await tokenFromMail(newEmail);
  const late = new Date(requestedAt.getTime() + EMAIL_CHANGE_TTL_MS + 1);
  expect(await confirmEmailChange(deps(), { clientIp: "192.0.2.1", token, now: late })).toEqual({ kind: "expired" });
  expect((await identity().getUser(member.sub)).email).toBe(member.email);
  // Just inside the hour it still works.
  const inTime = new Date(requestedAt.getTime() + EMAIL_CHANGE_TTL_MS - 1000);
  expect((await confirmEmailChange(deps(), { clientIp: "192.0.2.1", token, now: inTime })).kind).toBe("changed");
});

test("the same address, or one another member holds, is refused before any mail", async () => {
  const member = await createMember("taken");
  const other = await createMember("holder");
  const same = await requestEmailChange(deps(), {
    sub: member.sub,
    currentEmail: member.email,
    newEmail: member.email.toUpperCase(),
    locale: "ja",
  }).catch((error: unknown) => error);
  expect(same).toBeInstanceOf(DomainError);
  expect((same as DomainError).code).toBe("sameAddress");
  const taken = await requestEmailChange(deps(), {
    sub: member.sub,
    currentEmail: member.email,
    newEmail: other.email,
    locale: "ja",
  }).catch((error: unknown) => error);
  expect((taken as DomainError).code).toBe("emailUnavailable");
  expect(await handle.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub))).toHaveLength(0);
});

test("mail server down: a clear error and no token left behind", async () => {
  const member = await createMember("smtp-down");
  const failure = await requestEmailChange(deps("smtp://127.0.0.1:9"), {
    sub: member.sub,
    currentEmail: member.email,
    newEmail: `unsent-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    locale: "ja",
  }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(DomainError);
  expect((failure as DomainError).code).toBe("mailUnavailable");
  expect(await handle.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub))).toHaveLength(0);
}, 20_000);
