import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Mail the app sends after the response (app/domain/mail/mail-outbox.server.ts): the request that causes a mail
 * adds a row in its own transaction; a worker in every server process claims due rows (a lease, so two instances never
 * send one row at once), sends, and retries with backoff. A row holds what the mail says except its secrets: a link's
 * token is made when the mail is sent, so none is ever at rest here.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Which mail (MailKind): the worker renders it from `details` in `locale`. */
    kind: text().notNull(),
    recipient: text().notNull(),
    locale: text().notNull(),
    /** The mail's facts (times, device, browser, IP, the session an alert is about); never a token or password. */
    details: jsonb().$type<Record<string, string>>().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** While set in the future, one worker holds the row (it is sending); a crashed worker's lease runs out. */
    leasedUntil: timestamp({ withTimezone: true }),
    sentAt: timestamp({ withTimezone: true }),
    /** Set when the last attempt failed: the mail is not tried again (the log says why). */
    abandonedAt: timestamp({ withTimezone: true }),
    lastError: text(),
  },
  (table) => [
    // The worker's claim: the oldest due row still to send.
    index("mail_outbox_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.sentAt} is null and ${table.abandonedAt} is null`),
    // The purge deletes finished rows by age.
    index("mail_outbox_created_at_idx").on(table.createdAt),
  ],
);
