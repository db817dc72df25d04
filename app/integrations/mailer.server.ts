import type { i18n } from "i18next";
import nodemailer from "nodemailer";
import type { Config } from "~/config.server";
import type { Locale } from "~/i18n/locales";
import { fixedTranslator } from "~/i18n/translator.server";
import { countMailDelivery } from "~/integrations/metrics.server";

/** A mail server that does not answer within this is "down": the member hears so instead of waiting. */
export const MAIL_TIMEOUT_MS = 5_000;

/** The mail could not be handed to the SMTP server (down, refused, timed out, rejected). */
export class MailUnavailableError extends Error {
  constructor(cause?: unknown) {
    super("The mail server is unavailable", { cause });
    this.name = "MailUnavailableError";
  }
}

/**
 * The i18next instance a mail's text comes from: the request's (remix-i18next's getInstance), passed down by the
 * route that sends it. It translates into the mail's `locale`, which need not be the request's (staff write in
 * their language to a member who reads another).
 */
export type MailTexts = Pick<i18n, "getFixedT">;

/** A mail to one address, in `locale`. */
interface MailTo {
  to: string;
  locale: Locale;
  texts: MailTexts;
}

/** What a 2-step verification notice tells of. */
/**
 * What happened to a passkey: added or removed on our pages, or one held at Cognito that our pages did not add
 * (refused at sign-in, to be removed), then removed.
 */
export type PasskeyChange = "added" | "removed" | "unknownFound" | "unknownRemoved";

export type TwoStepChange =
  | "enabled"
  | "disabled"
  | "disabledByStaff"
  | "recoveryCodeUsed"
  | "recoveryCodesReplaced"
  /** An authenticator set up at Cognito around our pages (our record did not know it), removed. */
  | "unknownRemoved"
  /** Switched off at Cognito around our pages while our record said on, switched on again. */
  | "switchedOnAgain";

/** When a security event happened, as the mail says it (Japan time, already formatted). */
interface SecurityEventMail extends MailTo {
  when: string;
}

/**
 * The mails the app sends to members; the texts are the locales' ("emailChange:mail.*", "signInAlert:mail.*",
 * "withdrawal:mail.*", …).
 */
export interface Mailer {
  /** The link that confirms a new address, to that address. */
  sendEmailChangeLink(mail: MailTo & { link: string }): Promise<void>;
  /** The notice to the old address that the change is done. */
  sendEmailChangedNotice(mail: MailTo & { newEmail: string }): Promise<void>;
  /** The notice that staff changed the address; the same text goes to the old and to the new address. */
  sendStaffEmailChangeNotice(mail: MailTo & { oldEmail: string; newEmail: string }): Promise<void>;
  /** A sign-in from a browser new to the member, with the link that ends that sign-in. */
  sendSignInAlert(
    mail: SecurityEventMail & { device: string; browser: string; clientIp: string; link: string },
  ): Promise<void>;
  /**
   * The notice of a change to 2-step verification: turned on, turned off (by the member or by staff), or a recovery
   * code used to sign in (with how many are left), with the way to reset the password if it was not the member.
   */
  sendTwoStepNotice(
    mail: SecurityEventMail & { change: TwoStepChange; recoveryCodesLeft: number; resetLink: string },
  ): Promise<void>;
  /** The notice that the password was changed, with the way to reset it. */
  sendPasswordChangedNotice(mail: SecurityEventMail & { resetLink: string }): Promise<void>;
  /** The notice that the password was reset, with the way to reset it again. */
  sendPasswordResetNotice(mail: SecurityEventMail & { resetLink: string }): Promise<void>;
  /** The notice that a passkey was added to the account or removed from it, with the way to reset the password. */
  sendPasskeyNotice(
    mail: SecurityEventMail & { change: PasskeyChange; name: string; resetLink: string },
  ): Promise<void>;
  /** The confirmation that the membership was cancelled: what is kept, for how long, and that signing up again works. */
  sendCancellationNotice(mail: SecurityEventMail): Promise<void>;
  /**
   * The right password was typed and the second step not completed (codes refused, or none tried): someone may hold
   * the password, which the member should change.
   */
  sendSecondStepAlert(
    mail: SecurityEventMail & {
      device: string;
      browser: string;
      clientIp: string;
      refusedCodes: number;
      resetLink: string;
    },
  ): Promise<void>;
}

/** Sends plain-text mail through SMTP_URL (the embedded capture in dev and tests), rendered with i18next. */
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
  /** `kind`, the Mailer method's name, labels the metrics' count of sent and failed mail. */
  async function send(kind: keyof Mailer, to: string, subject: string, text: string) {
    try {
      if (!transport) throw new Error("SMTP_URL is not set");
      await transport.sendMail({ from: config.mailFrom, to, subject, text });
    } catch (error) {
      countMailDelivery(kind, "failed");
      throw new MailUnavailableError(error);
    }
    countMailDelivery(kind, "sent");
  }
  return {
    sendEmailChangeLink({ to, locale, texts, link }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendEmailChangeLink",
        to,
        t("emailChange:mail.confirmSubject"),
        t("emailChange:mail.confirmText", { link }),
      );
    },
    sendEmailChangedNotice({ to, locale, texts, newEmail }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendEmailChangedNotice",
        to,
        t("emailChange:mail.changedSubject"),
        t("emailChange:mail.changedText", { newEmail }),
      );
    },
    sendStaffEmailChangeNotice({ to, locale, texts, oldEmail, newEmail }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendStaffEmailChangeNotice",
        to,
        t("emailChange:mail.staffChangedSubject"),
        t("emailChange:mail.staffChangedText", { oldEmail, newEmail }),
      );
    },
    sendSignInAlert({ to, locale, texts, when, device, browser, clientIp, link }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendSignInAlert",
        to,
        t("signInAlert:mail.alertSubject"),
        t("signInAlert:mail.alertText", { when, device, browser, clientIp, link }),
      );
    },
    sendTwoStepNotice({ to, locale, texts, when, change, recoveryCodesLeft, resetLink }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendTwoStepNotice",
        to,
        t(`signInAlert:mail.twoStep.${change}Subject`),
        t(`signInAlert:mail.twoStep.${change}Text`, { when, count: String(recoveryCodesLeft), resetLink }),
      );
    },
    sendPasswordChangedNotice({ to, locale, texts, when, resetLink }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendPasswordChangedNotice",
        to,
        t("signInAlert:mail.passwordChangedSubject"),
        t("signInAlert:mail.passwordChangedText", { when, resetLink }),
      );
    },
    sendPasswordResetNotice({ to, locale, texts, when, resetLink }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendPasswordResetNotice",
        to,
        t("signInAlert:mail.passwordResetSubject"),
        t("signInAlert:mail.passwordResetText", { when, resetLink }),
      );
    },
    sendSecondStepAlert({ to, locale, texts, when, device, browser, clientIp, refusedCodes, resetLink }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendSecondStepAlert",
        to,
        t("signInAlert:mail.secondStepSubject"),
        t("signInAlert:mail.secondStepText", {
          when,
          device,
          browser,
          clientIp,
          count: String(refusedCodes),
          resetLink,
        }),
      );
    },
    sendCancellationNotice({ to, locale, texts, when }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendCancellationNotice",
        to,
        t("withdrawal:mail.cancelledSubject"),
        t("withdrawal:mail.cancelledText", { when }),
      );
    },
    sendPasskeyNotice({ to, locale, texts, change, name, when, resetLink }) {
      const t = fixedTranslator(texts, locale);
      return send(
        "sendPasskeyNotice",
        to,
        t(`passkeys:mail.${change}Subject`),
        t(`passkeys:mail.${change}Text`, { name, when, resetLink }),
      );
    },
  };
}
