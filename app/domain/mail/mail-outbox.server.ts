import { EventEmitter } from "node:events";
import { and, asc, eq, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { mailOutbox, memberProfiles } from "~db/schema";
import { type Locale, isLocale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { countAbandonedMail } from "~/integrations/metrics.server";
import type { MailTexts, PasskeyChange, TwoStepChange } from "~/integrations/mailer.server";
import type { AppServices } from "~/services.server";
import { issueSignInAlertToken } from "../account/sign-in-alert-links.server";

/** Attempts before a mail is given up (logged as an error): with the backoff below, about a day of trying. */
export const MAIL_MAX_ATTEMPTS = 12;
/** The wait after the first failed attempt; it doubles each time, up to MAIL_MAX_BACKOFF_MS. */
export const MAIL_FIRST_BACKOFF_MS = 30_000;
export const MAIL_MAX_BACKOFF_MS = 4 * 60 * 60 * 1000;
/**
 * How long a worker holds a claimed row: well beyond one send (the mailer gives up on a silent server after
 * MAIL_TIMEOUT_MS per step), so no other worker sends it meanwhile; a crashed worker's rows are free again after it.
 */
export const MAIL_LEASE_MS = 2 * 60 * 1000;
/** Other instances' mail is found by polling this often; the instance that queued a mail is woken at once. */
export const MAIL_POLL_INTERVAL_MS = 30_000;
/** Sent and abandoned rows are deleted by the purge after this long (they hold an address and an IP). */
export const MAIL_OUTBOX_RETENTION_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The mails the outbox sends, each with the facts it says (stored as JSON: strings only, no secret). */
export type OutboxMail =
  | {
      kind: "signInAlert";
      details: {
        sub: string;
        sessionId: string;
        signedInAt: string;
        device: string;
        browser: string;
        clientIp: string;
      };
    }
  | { kind: "passwordChanged"; details: { changedAt: string } }
  | { kind: "passwordReset"; details: { changedAt: string } }
  | { kind: "twoStepChanged"; details: { change: TwoStepChange; changedAt: string; recoveryCodesLeft: string } }
  | { kind: "passkeyChanged"; details: { change: PasskeyChange; name: string; changedAt: string } }
  | { kind: "membershipCancelled"; details: { cancelledAt: string } }
  | {
      kind: "secondStepUnfinished";
      details: { startedAt: string; refusedCodes: string; device: string; browser: string; clientIp: string };
    };

export type MailKind = OutboxMail["kind"];

/**
 * The member's preferred language from their profile, else the language the request that queued the mail was in.
 * As SQL, so that queueing stays one statement.
 */
export function mailLocaleFor(sub: string, requestLocale: Locale) {
  return sql<string>`coalesce((select ${memberProfiles.preferredLanguage} from ${memberProfiles} where ${memberProfiles.sub} = ${sub}), ${requestLocale})`;
}

/**
 * Adds a mail to the outbox (one insert, inside the caller's transaction when given one). Call `ringMailOutbox`
 * after the transaction commits so that this process sends it at once.
 */
export async function queueMail(
  db: Database,
  mail: OutboxMail & { recipient: string; sub: string; requestLocale: Locale; now: Date },
): Promise<void> {
  await db.insert(mailOutbox).values({
    kind: mail.kind,
    recipient: mail.recipient,
    locale: mailLocaleFor(mail.sub, mail.requestLocale),
    details: mail.details,
    createdAt: mail.now,
    nextAttemptAt: mail.now,
  });
}

/**
 * Queues a notice about a change that has already happened and rings the worker. A failure to queue is logged, not
 * thrown: the change stands, and the member must not see it reported as failed for want of its mail.
 */
export async function queueNotice(
  db: Database,
  mail: OutboxMail & { recipient: string; sub: string; requestLocale: Locale; now: Date },
): Promise<void> {
  try {
    await queueMail(db, mail);
  } catch (error) {
    logger.error({ err: error, kind: mail.kind }, "a notice mail could not be queued; it is not sent");
    return;
  }
  ringMailOutbox();
}

/**
 * The doorbell this process's mail worker listens on, kept on `globalThis` under a registered symbol rather than in a
 * module variable: the routes run from React Router's server build and the server's jobs from the HTTP server's own
 * bundle (or source), so one process loads this module twice, and a module variable would be two doorbells.
 */
const DOORBELL_KEY = Symbol.for("member-account.mail-outbox-doorbell");

function doorbell(): EventEmitter {
  const holder = globalThis as unknown as Record<symbol, EventEmitter | undefined>;
  return (holder[DOORBELL_KEY] ??= new EventEmitter());
}

/**
 * Rings this process's mail worker (startMailOutboxWorker): a mail was just queued. Other instances find it by
 * polling; a process without a worker (a command) leaves it to the servers.
 */
export function ringMailOutbox(): void {
  doorbell().emit("ring");
}

/** The links the outbox's mails carry: absolute, in the mail's language (app/routing/security-mail-links.ts). */
export interface SecurityMailLinks {
  /** The page whose button ends the sign-in an alert told of. */
  signInAlert(token: string, locale: Locale): string;
  /** The password reset, for a member told of a change they did not make (who may not be able to sign in). */
  passwordReset(locale: Locale): string;
}

export type MailOutboxDependencies = Pick<AppServices, "db" | "mailer" | "clock"> & {
  /** The translations mails are written from (no request's: the worker sends after the response). */
  mailTexts: MailTexts;
  /** The links mails carry (the edge knows the routes). */
  links: SecurityMailLinks;
};

type ClaimedMail = typeof mailOutbox.$inferSelect;

/**
 * Takes the oldest due mail for this worker: its lease starts and its attempt is counted in one statement. `for
 * update skip locked` lets concurrent workers pass over a row another is claiming, and the lease keeps them off it
 * while it is being sent, so no two workers on any instance send one row.
 */
async function claimDueMail(db: Database, now: Date): Promise<ClaimedMail | null> {
  const due = db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(
      and(
        isNull(mailOutbox.sentAt),
        isNull(mailOutbox.abandonedAt),
        lte(mailOutbox.nextAttemptAt, now),
        or(isNull(mailOutbox.leasedUntil), lte(mailOutbox.leasedUntil, now)),
      ),
    )
    .orderBy(asc(mailOutbox.nextAttemptAt))
    .limit(1)
    .for("update", { skipLocked: true });
  const [claimed] = await db
    .update(mailOutbox)
    .set({ leasedUntil: new Date(now.getTime() + MAIL_LEASE_MS), attempts: sql`${mailOutbox.attempts} + 1` })
    .where(eq(mailOutbox.id, sql`(${due})`))
    .returning();
  return claimed ?? null;
}

const JAPAN_TIME = new Intl.DateTimeFormat("ja-JP", {
  timeZone: "Asia/Tokyo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

/** A time as mails say it: Japan time, to the minute ("2026/11/26 14:41"). */
export function formatJapanTime(iso: string): string {
  return JAPAN_TIME.format(new Date(iso));
}

/** Renders and sends one claimed mail; a sign-in alert's link token is made here, so it is never stored in clear. */
async function sendClaimedMail(deps: MailOutboxDependencies, row: ClaimedMail): Promise<void> {
  const mail = { kind: row.kind, details: row.details } as OutboxMail;
  const locale: Locale = isLocale(row.locale) ? row.locale : "ja";
  const common = { to: row.recipient, locale, texts: deps.mailTexts };
  const resetLink = deps.links.passwordReset(locale);
  switch (mail.kind) {
    case "signInAlert": {
      const { sub, sessionId, signedInAt, device, browser, clientIp } = mail.details;
      const link = deps.links.signInAlert(await issueSignInAlertToken(deps, { sub, sessionId }), locale);
      return deps.mailer.sendSignInAlert({
        ...common,
        when: formatJapanTime(signedInAt),
        device,
        browser,
        clientIp,
        link,
      });
    }
    case "passwordChanged":
      return deps.mailer.sendPasswordChangedNotice({
        ...common,
        when: formatJapanTime(mail.details.changedAt),
        resetLink,
      });
    case "passwordReset":
      return deps.mailer.sendPasswordResetNotice({
        ...common,
        when: formatJapanTime(mail.details.changedAt),
        resetLink,
      });
    case "twoStepChanged":
      return deps.mailer.sendTwoStepNotice({
        ...common,
        when: formatJapanTime(mail.details.changedAt),
        change: mail.details.change,
        recoveryCodesLeft: Number(mail.details.recoveryCodesLeft),
        resetLink,
      });
    case "secondStepUnfinished":
      return deps.mailer.sendSecondStepAlert({
        ...common,
        when: formatJapanTime(mail.details.startedAt),
        device: mail.details.device,
        browser: mail.details.browser,
        clientIp: mail.details.clientIp,
        refusedCodes: Number(mail.details.refusedCodes),
        resetLink,
      });
    case "passkeyChanged":
      return deps.mailer.sendPasskeyNotice({
        ...common,
        change: mail.details.change,
        name: mail.details.name,
        when: formatJapanTime(mail.details.changedAt),
        resetLink,
      });
    case "membershipCancelled":
      return deps.mailer.sendCancellationNotice({ ...common, when: formatJapanTime(mail.details.cancelledAt) });
  }
}

function backoffAfter(attempts: number): number {
  return Math.min(MAIL_FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAIL_MAX_BACKOFF_MS);
}

/** After a failed attempt: due again after the backoff, or abandoned after the last attempt. */
async function recordFailedAttempt(deps: MailOutboxDependencies, row: ClaimedMail, error: unknown): Promise<void> {
  const now = deps.clock.now();
  const lastError = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const abandon = row.attempts >= MAIL_MAX_ATTEMPTS;
  await deps.db
    .update(mailOutbox)
    .set(
      abandon
        ? { leasedUntil: null, abandonedAt: now, lastError }
        : { leasedUntil: null, nextAttemptAt: new Date(now.getTime() + backoffAfter(row.attempts)), lastError },
    )
    .where(eq(mailOutbox.id, row.id));
  const fields = { err: error, mailId: row.id, kind: row.kind, attempts: row.attempts };
  if (abandon) {
    countAbandonedMail();
    logger.error(fields, "a mail could not be sent and is given up");
  } else logger.warn(fields, "a mail could not be sent; it is tried again later");
}

/**
 * Sends every mail that is due, one at a time, until none is left (or another worker holds the rest). A failed
 * send is logged and retried later, with backoff; the member who caused the mail never hears of it. Returns how
 * many mails were sent.
 */
export async function sendDueMail(deps: MailOutboxDependencies): Promise<number> {
  let sent = 0;
  for (;;) {
    const row = await claimDueMail(deps.db, deps.clock.now());
    if (!row) return sent;
    try {
      await sendClaimedMail(deps, row);
    } catch (error) {
      await recordFailedAttempt(deps, row, error);
      continue;
    }
    await deps.db
      .update(mailOutbox)
      .set({ sentAt: deps.clock.now(), leasedUntil: null, lastError: null })
      .where(eq(mailOutbox.id, row.id));
    sent += 1;
  }
}

/**
 * The outbox's worker in a server process: sends due mail when rung (ringMailOutbox, right after a request queued
 * one) and every MAIL_POLL_INTERVAL_MS (mail queued by other instances, retries). One run at a time; a ring during
 * a run makes one more run after it, so a mail queued meanwhile is not left to the next poll. `stop` waits for the
 * run in progress.
 */
export function startMailOutboxWorker(
  deps: MailOutboxDependencies,
  options: { pollIntervalMs?: number } = {},
): { stop(): Promise<void> } {
  let current: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    if (current) {
      again = true;
      return;
    }
    current = sendDueMail(deps)
      .then(
        () => {},
        (error: unknown) => logger.warn({ err: error }, "the mail outbox could not be read; it is tried again later"),
      )
      .finally(() => {
        current = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  doorbell().on("ring", run);
  const interval = setInterval(run, options.pollIntervalMs ?? MAIL_POLL_INTERVAL_MS);
  interval.unref();
  // Mail left from before a restart goes out now rather than at the first poll.
  run();
  return {
    async stop() {
      stopped = true;
      doorbell().off("ring", run);
      clearInterval(interval);
      while (current) await current;
    },
  };
}

/** Deletes sent and abandoned mail older than MAIL_OUTBOX_RETENTION_DAYS (the purge). */
export async function purgeFinishedMail(db: Database, now: Date): Promise<{ deleted: number }> {
  const before = new Date(now.getTime() - MAIL_OUTBOX_RETENTION_DAYS * DAY_MS);
  const rows = await db
    .delete(mailOutbox)
    .where(and(lt(mailOutbox.createdAt, before), or(isNotNull(mailOutbox.sentAt), isNotNull(mailOutbox.abandonedAt))))
    .returning({ id: mailOutbox.id });
  return { deleted: rows.length };
}
