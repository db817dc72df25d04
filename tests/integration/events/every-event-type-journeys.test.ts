import { randomBytes } from "node:crypto";
import { type Browser, type BrowserContext, type Page, chromium, expect as expectPage } from "@playwright/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase } from "~db/client.server";
import { memberProfiles } from "~db/schema";
import { CANCELLED_DATA_RETENTION_MONTHS } from "~/domain/account/withdrawal.server";
import {
  ACCOUNT_EVENT_TYPES,
  type AccountEventBody,
  type AccountEventType,
} from "~/domain/events/account-events.server";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../support/chromium";
import { codeMailsTo } from "../../support/code-mails";
import {
  type EventReceiverProcess,
  type ReceivedDelivery,
  startEventReceiver,
} from "../../support/event-receiver-process";
import { fillProfileFields } from "../../support/profile-form";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { openStaffSessionInBrowser, signIn } from "../../support/sign-in-form";
import { createApiStaff } from "../../support/staff-api-access";
import { findFreePort } from "../../support/stand-ins/cognito-stand-in";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { seedPgliteDataDir } from "../../support/pglite-template";
import { makeTempDir } from "../../support/temp-dir";
import { totpCode } from "../../support/totp-codes";
import { addVirtualAuthenticator } from "../../support/virtual-authenticator";

/**
 * Issue 47's proof from a sibling's side: a receiver in a process of its own (tests/support/event-receiver.ts, which
 * checks each webhook with the `standardwebhooks` package and each logout token with `jose` against the app's
 * /.well-known/jwks.json) hears every account event type after the journey that causes it, walked in Chromium with
 * JavaScript off through the production build's pages, as a member on a slow phone would; adding and removing a
 * passkey, which needs JavaScript, with it on and a virtual authenticator. member.created comes twice: the sign-up's
 * and the staff's CSV import's.
 *
 * The sibling settings name the receiver for Data's webhook (every type) and Compe's logout URI; the embedded stack
 * fills only what the environment leaves unset (fillUnsetSettings), so the dev event capture gets the rest and none
 * of these. The receiver fails the first webhook and the first logout token once, so each is retried (after 5 s, the
 * schedule's first step: the app has no knob for it) with the same webhook-id or jti.
 *
 * The purge (member.deleted) deletes members cancelled 13 months ago: the test stops the server, moves the
 * cancellation back in its PGlite (one process's, so only while the server is down) and starts it again on the same
 * data directory with the purge every few seconds, as the two-instances test makes the purge due.
 */
const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const NEW_PASSWORD = "a-brand-new-passphrase";
/** The CSV import's columns (docs: the import page's list of columns). */
const IMPORT_HEADER =
  "email,family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language";
/** Short enough for the restarted server's first purge (one interval after its start) to come within seconds. */
const PURGE_INTERVAL_MINUTES = "0.02";

const dataDir = makeTempDir("every-event-type");
let receiverPort: number;
let server: ServerProcess;
let receiver: EventReceiverProcess;
let browser: Browser;

/** The app's origin: APP_ORIGIN names localhost, posts must come from it and passkeys are for it. */
const originOf = (running: ServerProcess) => `http://localhost:${new URL(running.url).port}`;

function startServer(env: Record<string, string> = {}) {
  const receiverAt = `http://127.0.0.1:${receiverPort}`;
  return startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir.dir,
    PURGE_INTERVAL_MINUTES: "0",
    SERVICE_WEBHOOK_URL_DATA: `${receiverAt}/data/webhook`,
    SERVICE_WEBHOOK_SECRETS_DATA: SECRET,
    SERVICE_LOGOUT_URI_COMPE: `${receiverAt}/compe/logout`,
    ...env,
  });
}

beforeAll(async () => {
  // The receiver checks tokens against the server's keys and the server sends to the receiver: its port comes first.
  receiverPort = await findFreePort();
  seedPgliteDataDir(dataDir.dir);
  [server, browser] = await Promise.all([
    startServer(),
    chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
  ]);
  receiver = await startEventReceiver({
    issuer: originOf(server),
    jwksUrl: `${originOf(server)}/.well-known/jwks.json`,
    secrets: { data: [SECRET] },
    port: receiverPort,
  });
  await receiver.answer("data", "webhook", [500]);
  await receiver.answer("compe", "logout", [500]);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await server?.stop();
  dataDir.remove();
});

/** A Japanese browser of its own, JavaScript off unless asked for. */
async function newBrowser(javaScriptEnabled = false): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: originOf(server), locale: "ja-JP", javaScriptEnabled });
  return { context, page: await context.newPage() };
}

/** Another browser (JavaScript off) signed in as the member. */
async function signedInBrowser(member: { email: string; password: string }) {
  const opened = await newBrowser();
  await opened.page.goto("/auth/sign-in/?to=my-profile");
  await signIn(opened.page, member);
  await expectPage(opened.page).toHaveURL(/\/my\/profile\/$/);
  return opened;
}

const webhooks = async () => (await receiver.received()).filter((delivery) => delivery.channel === "webhook");
const bodyOf = (delivery: ReceivedDelivery) => delivery.body as unknown as AccountEventBody;
const sidOf = (event: AccountEventBody) => (event.data as { sid: string }).sid;

/** The member's events Data has received (once each, whatever the retries), in the order of their sequence. */
async function eventsOf(sub: string): Promise<AccountEventBody[]> {
  const byId = new Map<string, AccountEventBody>();
  for (const delivery of await webhooks())
    if (bodyOf(delivery).sub === sub) byId.set(delivery.webhookId!, bodyOf(delivery));
  return [...byId.values()].sort((a, b) => a.sequence - b.sequence);
}

/** An event a journey is expected to cause: its type, and what its data holds (compared as JSON, key by key). */
interface ExpectedEvent {
  type: AccountEventType;
  data?: Record<string, unknown>;
}

const holds = (event: AccountEventBody, expected: ExpectedEvent) =>
  event.type === expected.type &&
  Object.entries(expected.data ?? {}).every(
    ([key, value]) => JSON.stringify((event.data as Record<string, unknown>)[key]) === JSON.stringify(value),
  );

/**
 * The member's journeys in order, as Data hears them: each waits for the events it caused, numbered after those of
 * the journeys before it (an earlier event that arrives late, as a retried one does, is never taken for a later one).
 */
function memberEvents(sub: string) {
  let lastSequence = 0;
  return {
    async expectNext(...expected: ExpectedEvent[]): Promise<AccountEventBody[]> {
      let found: AccountEventBody[] = [];
      await expect
        .poll(async () => {
          const later = (await eventsOf(sub)).filter((event) => event.sequence > lastSequence);
          found = [];
          for (const wanted of expected) {
            const event = later.find((candidate) => !found.includes(candidate) && holds(candidate, wanted));
            if (event) found.push(event);
          }
          return found.map((event) => event.type);
        })
        .toEqual(expected.map((wanted) => wanted.type));
      lastSequence = Math.max(...found.map((event) => event.sequence));
      return found;
    },
  };
}

/** Sign-up with JavaScript off: address, password and agreements, the mailed code, the account information. */
async function signUp(page: Page, email: string, password: string) {
  await page.goto("/auth/sign-up/");
  await page.locator('[name="email"]').fill(email);
  await page.locator('[name="password"]').fill(password);
  for (const name of ["agreeIdTerms", "agreeDataTerms", "agreePrivacy"]) await page.locator(`[name="${name}"]`).check();
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  const [mail] = await codeMailsTo(dataDir.dir, email);
  await page.locator('[name="code"]').fill(mail!.code!);
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await fillProfileFields(page, {
    familyName: "通知",
    givenName: "太郎",
    birthYear: "1980",
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    organization: "通知設計",
  });
  await page.getByLabel("雑誌", { exact: true }).check();
  await page.getByLabel("価格").check();
  await page.getByLabel("ウェブメディア").check();
  await page.getByRole("button", { name: "登録する" }).click();
  await expectPage(page.getByRole("heading", { level: 1 })).toHaveText("登録が完了しました");
}

/** The e-mail change link in the newest mail to `email`. */
async function emailChangeLinkTo(email: string): Promise<string> {
  let link = "";
  await expect
    .poll(async () => {
      const mails = await listMailboxEntries(mailboxDirectory(dataDir.dir));
      const mail = mails.find((entry) => entry.kind === "mail" && entry.to.includes(email));
      link = /https?:\/\/[^\s"<]+?(\/email-update\/[A-Za-z0-9_-]+\/)/.exec(mail?.text ?? "")?.[1] ?? "";
      return link;
    })
    .not.toBe("");
  return link;
}

/** Each key's deliveries, in arrival order. */
function attemptsBy(deliveries: ReceivedDelivery[], keyOf: (delivery: ReceivedDelivery) => string) {
  const attempts = new Map<string, ReceivedDelivery[]>();
  for (const delivery of deliveries)
    attempts.set(keyOf(delivery), [...(attempts.get(keyOf(delivery)) ?? []), delivery]);
  return [...attempts.values()];
}

/** Deleting a passkey asks first: "削除" opens the question, the passkey's own button confirms it. */
async function deleteThePasskey(page: Page) {
  const item = page.locator(".passkey-list__item");
  await item.getByText("削除", { exact: true }).click();
  await item.getByRole("button", { name: /^パスキー .+ を削除$/ }).click();
  await expectPage(page.getByTestId("toast")).toContainText(/パスキー .+ を削除しました/);
}

test("every account event type reaches a sibling's receiver in another process after its journey, signed, once per id, retried with the same id", async () => {
  const member = {
    email: `every-event-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    password: "a-long-enough-password",
  };
  const signedUp: ExpectedEvent = { type: "member.created", data: { email: member.email, via: "sign-up" } };
  // The staff member who disables and enables the member: made meanwhile (its authenticator can wait for a time step).
  const staffReady = createApiStaff(
    { url: server.url, standInPort: server.standInPort, origin: originOf(server) },
    "every-event",
  );

  // Sign up, then sign in: member.created, the account information's member.updated, session.created.
  const here = await newBrowser();
  await signUp(here.page, member.email, member.password);
  let sub = "";
  await expect
    .poll(async () => {
      const created = (await webhooks()).map(bodyOf).find((event) => holds(event, signedUp));
      sub = created?.sub ?? "";
      return sub;
    })
    .not.toBe("");
  const journey = memberEvents(sub);
  await here.page.getByRole("main").getByRole("link", { name: "ログイン" }).click();
  await signIn(here.page, member);
  await expectPage(here.page.getByRole("banner")).toContainText("通知 太郎");
  await journey.expectNext(signedUp, { type: "member.updated" }, { type: "session.created" });

  // The profile: another organization, then the newsletter turned off.
  await here.page.goto("/my/profile/edit/");
  await fillProfileFields(here.page, { organization: "通知設計事務所" });
  await here.page.getByRole("button", { name: "変更する" }).click();
  await expectPage(here.page).toHaveURL(/\/my\/profile\/$/);
  await journey.expectNext({ type: "member.updated", data: { changed: { organization: "通知設計事務所" } } });
  await here.page.goto("/my/profile/edit/");
  await here.page.getByRole("checkbox", { name: "メールマガジンを受け取る" }).uncheck();
  await here.page.getByRole("button", { name: "変更する" }).click();
  await expectPage(here.page.getByTestId("newsletter")).toHaveText("受け取らない");
  await journey.expectNext({ type: "member.newsletter_changed", data: { newsletter: false } });

  // A new address, confirmed by the mailed link.
  const newEmail = `every-event-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await here.page.goto("/my/email/edit/");
  await here.page.getByLabel("新しいメールアドレス").fill(newEmail);
  await here.page.getByRole("button", { name: "確認メールを送信する" }).click();
  await expectPage(here.page.getByTestId("email-change-sent")).toBeVisible();
  await here.page.goto(await emailChangeLinkTo(newEmail));
  await here.page.getByRole("button", { name: "メールアドレスを変更する" }).click();
  await expectPage(here.page.getByTestId("email")).toHaveText(newEmail);
  await journey.expectNext({ type: "member.email_changed", data: { email: newEmail } });
  member.email = newEmail;

  // 2-step verification on, with a code from the set-up page's key, and off again.
  await here.page.goto("/my/security/authenticator/");
  await here.page.getByRole("button", { name: "設定を始める" }).click();
  const key = (await here.page.getByTestId("authenticator-key").textContent()) ?? "";
  await here.page.getByLabel("認証コード（6桁）").fill(totpCode(key));
  await here.page.getByRole("button", { name: "有効にする" }).click();
  await expectPage(here.page.getByTestId("recovery-codes").locator("li")).toHaveCount(10);
  await here.page.goto("/my/security/authenticator/");
  await here.page.getByRole("button", { name: "2段階認証を無効にする" }).click();
  await expectPage(here.page).toHaveURL(/\/my\/security\/$/);
  await journey.expectNext(
    { type: "member.two_step_changed", data: { authenticatorApp: true } },
    { type: "member.two_step_changed", data: { authenticatorApp: false } },
  );

  // A password change with another browser signed in: that browser's session ends, and this browser's sign-in
  // before the change gives way to a new one.
  const other = await signedInBrowser(member);
  await journey.expectNext({ type: "session.created" });
  await here.page.goto("/my/password/edit/");
  await here.page.getByLabel("現在のパスワード").fill(member.password);
  await here.page.getByLabel("新しいパスワード").fill(NEW_PASSWORD);
  await here.page.getByRole("button", { name: "パスワードを変更する" }).click();
  await expectPage(here.page.getByTestId("toast")).toContainText("パスワードを変更しました");
  member.password = NEW_PASSWORD;
  await journey.expectNext(
    { type: "member.password_changed", data: { via: "change" } },
    { type: "session.revoked", data: { reason: "password-changed" } },
    { type: "session.revoked", data: { reason: "password-changed" } },
    { type: "session.created" },
  );
  await other.context.close();

  // Another browser deactivated on the devices page.
  const deactivated = await signedInBrowser(member);
  await journey.expectNext({ type: "session.created" });
  await here.page.goto("/my/devices/");
  await here.page.getByRole("button", { name: /を無効にする$/ }).click();
  await expectPage(here.page.getByTestId("device-count")).toHaveText("ログイン中のデバイス：1台");
  await journey.expectNext({ type: "session.revoked", data: { reason: "device-deactivated" } });
  await deactivated.context.close();

  // A passkey added and removed: with JavaScript (WebAuthn needs it) and Chromium's virtual authenticator.
  const withScript = await newBrowser(true);
  await addVirtualAuthenticator(withScript.page);
  await withScript.page.goto("/auth/sign-in/?to=my-profile");
  await signIn(withScript.page, member);
  await expectPage(withScript.page).toHaveURL(/\/my\/profile\/$/);
  await journey.expectNext({ type: "session.created" });
  await withScript.page.goto("/my/security/");
  await withScript.page.getByRole("button", { name: "パスキーを追加" }).click();
  await expectPage(withScript.page.getByTestId("toast")).toContainText("パスキーを追加しました");
  await deleteThePasskey(withScript.page);
  await journey.expectNext(
    { type: "member.passkeys_changed", data: { change: "added", passkeys: 1 } },
    { type: "member.passkeys_changed", data: { change: "removed", passkeys: 0 } },
  );

  // Staff disable the member on the member's page, which ends both browsers' sessions, and enable them again.
  const staff = await staffReady;
  const staffBrowser = await newBrowser();
  await openStaffSessionInBrowser(staffBrowser.page, staff, { path: `/admin/users/${sub}/` });
  for (const [action, confirm, done] of [
    ["アカウントを無効化", "無効化する", "アカウントを無効化しました"],
    ["アカウントを有効化", "有効化する", "アカウントを有効化しました"],
  ] as const) {
    await staffBrowser.page.getByRole("link", { name: action }).click();
    await staffBrowser.page.getByTestId("confirm-panel").getByRole("button", { name: confirm }).click();
    await expectPage(staffBrowser.page.getByTestId("toast")).toContainText(done);
  }
  await journey.expectNext(
    { type: "member.disabled" },
    { type: "session.revoked", data: { reason: "staff-disabled" } },
    { type: "session.revoked", data: { reason: "staff-disabled" } },
    { type: "member.enabled" },
  );
  // The CSV import's own member.created, for a member of its own: the staff upload a one-row file and start it.
  const importedEmail = `every-event-import-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const csv = `${IMPORT_HEADER}\n${importedEmail},輸入,花子,1985,JP,東京都,architect,輸入設計,ja\n`;
  await staffBrowser.page.goto("/admin/csv-import/");
  await staffBrowser.page
    .getByLabel("CSVファイル")
    .setInputFiles({ name: "members.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await staffBrowser.page.getByRole("button", { name: "チェックする" }).click();
  await staffBrowser.page.getByRole("button", { name: "インポートを開始" }).click();
  await expectPage(staffBrowser.page).toHaveURL(/\/admin\/csv-import\/[0-9a-f-]{36}\/$/);
  await Promise.all([staffBrowser.context.close(), withScript.context.close(), here.context.close()]);

  // Signing in and out.
  const signingOut = await signedInBrowser(member);
  await signingOut.page.goto("/auth/sign-out/");
  await signingOut.page.getByRole("main").getByRole("button", { name: "ログアウト", exact: true }).click();
  await expectPage(signingOut.page.getByTestId("toast")).toContainText("ログアウトしました");
  await journey.expectNext({ type: "session.created" }, { type: "session.revoked", data: { reason: "signed-out" } });
  await signingOut.context.close();

  // Withdrawal.
  const leaving = await signedInBrowser(member);
  await journey.expectNext({ type: "session.created" });
  await leaving.page.goto("/my/withdrawal/");
  await leaving.page.getByLabel("退会理由").selectOption("noLongerNeeded");
  await leaving.page.getByRole("button", { name: "確認画面へ進む" }).click();
  await leaving.page.getByLabel("上記の注意事項を確認し、同意します").check();
  await leaving.page.getByLabel("パスワード").fill(member.password);
  await leaving.page.getByRole("button", { name: "退会する" }).click();
  await expectPage(leaving.page.getByTestId("toast")).toContainText("退会手続きが完了しました");
  await journey.expectNext({ type: "member.withdrawn" }, { type: "session.revoked", data: { reason: "withdrawn" } });
  await leaving.context.close();

  // Every ended session's logout token is in, answered 200 (the failed one on its second attempt), before the server
  // stops. Each attempt is listed with its answer and the receiver's objection, if any, so a missing one says why.
  const ended = (await eventsOf(sub)).filter((event) => event.type === "session.revoked").map(sidOf);
  const logoutAnswers = async () =>
    (await receiver.received())
      .filter((delivery) => delivery.channel === "logout")
      .map((delivery) => `${String(delivery.claims?.sid)} ${delivery.answered} ${delivery.problem ?? ""}`.trim());
  await expect.poll(logoutAnswers).toEqual(expect.arrayContaining(ended.map((sid) => `${sid} 200`)));

  // Thirteen months on: the purge deletes the member (member.deleted).
  await server.stop();
  const handle = openDatabase({ dataDir: dataDir.dir });
  try {
    const cancelledAt = new Date();
    cancelledAt.setUTCMonth(cancelledAt.getUTCMonth() - CANCELLED_DATA_RETENTION_MONTHS - 1);
    await handle.db.update(memberProfiles).set({ cancelledAt }).where(eq(memberProfiles.sub, sub));
  } finally {
    await handle.close();
  }
  server = await startServer({ PURGE_INTERVAL_MINUTES });
  await journey.expectNext({ type: "member.deleted" });

  // The import's member was created meanwhile.
  const imported: ExpectedEvent = { type: "member.created", data: { email: importedEmail, via: "import" } };
  await expect.poll(async () => (await webhooks()).some((delivery) => holds(bodyOf(delivery), imported))).toBe(true);

  // Every type, each delivery's signature valid by the receiver's own check.
  const received = await receiver.received();
  const deliveries = received.filter((delivery) => delivery.channel === "webhook");
  expect(new Set(deliveries.map((delivery) => bodyOf(delivery).type))).toEqual(new Set(ACCOUNT_EVENT_TYPES));
  expect(deliveries.filter((delivery) => !delivery.verified).map((delivery) => delivery.problem)).toEqual([]);
  // One id per event, the body's own, on each attempt with the same body; the failed one came again with it.
  const webhookAttempts = attemptsBy(deliveries, (delivery) => delivery.webhookId!);
  for (const attempts of webhookAttempts) {
    expect(new Set(attempts.map((attempt) => JSON.stringify(attempt.body))).size).toBe(1);
    expect(bodyOf(attempts[0]!).id).toBe(attempts[0]!.webhookId);
  }
  const events = webhookAttempts.map((attempts) => bodyOf(attempts[0]!));
  expect(new Set(events.map((event) => `${event.sub} ${event.sequence}`)).size).toBe(events.length);
  const retried = webhookAttempts.find((attempts) => attempts[0]!.answered === 500);
  expect(retried?.map((attempt) => attempt.answered)).toEqual([500, 200]);
  // The member's events numbered 1, 2, 3… in the order they happened.
  const ofMember = await eventsOf(sub);
  expect(ofMember.map((event) => event.sequence)).toEqual(ofMember.map((_, index) => index + 1));
  // Every session the member opened ended, and Compe had a logout token for each: verified by jose against the
  // published keys, naming the member and the session; the first failed and came again with the same jti.
  const created = ofMember.filter((event) => event.type === "session.created").map(sidOf);
  expect(new Set(ended)).toEqual(new Set(created));
  const logouts = received.filter((delivery) => delivery.channel === "logout");
  expect(logouts.filter((delivery) => !delivery.verified).map((delivery) => delivery.problem)).toEqual([]);
  expect(new Set(logouts.map((delivery) => delivery.claims!.sub))).toEqual(new Set([sub]));
  const logoutAttempts = attemptsBy(logouts, (delivery) => delivery.claims!.jti as string);
  for (const attempts of logoutAttempts) {
    expect(new Set(attempts.map((attempt) => attempt.claims!.sid)).size).toBe(1);
  }
  expect(logoutAttempts.map((attempts) => attempts[0]!.claims!.sid).sort()).toEqual([...ended].sort());
  const retriedLogout = logoutAttempts.find((attempts) => attempts[0]!.answered === 500);
  expect(retriedLogout?.map((attempt) => attempt.answered)).toEqual([500, 200]);
}, 300_000);
