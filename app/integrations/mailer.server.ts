import nodemailer from "nodemailer";
import type { Config } from "~/config.server";

/** A mail server that does not answer within this is "down": the member hears so instead of waiting. */
export const MAIL_TIMEOUT_MS = 5_000;

/** The mail could not be handed to the SMTP server (down, refused, timed out, rejected). */
export class MailUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("The mail server is unavailable", { cause });
    this.name = "MailUnavailableError";
  }
}

export interface Mailer {
  sendMail(message: { to: string; subject: string; text: string }): Promise<void>;
}

/** Sends plain-text mail through SMTP_URL (the embedded capture in dev and tests). */
export function createMailer(config: Pick<Config, "smtpUrl" | "mailFrom">): Mailer {
  const transport = config.smtpUrl
    ? nodemailer.createTransport({
        url: config.smtpUrl,
        connectionTimeout: MAIL_TIMEOUT_MS,
        greetingTimeout: MAIL_TIMEOUT_MS,
        socketTimeout: MAIL_TIMEOUT_MS,
        dnsTimeout: MAIL_TIMEOUT_MS,
      })
    : null;
  return {
    async sendMail({ to, subject, text }) {
      if (!transport) throw new MailUnavailableError(new Error("SMTP_URL is not set"));
      try {
        await transport.sendMail({ from: config.mailFrom, to, subject, text });
      } catch (error) {
        throw new MailUnavailableError(error);
      }
    },
  };
}
