import type { Database } from "~db/client.server";
import type { Locale } from "~/i18n/locales";
import type { DeviceDescription } from "../sessions/device-description.server";
import { queueMail } from "../mail/mail-outbox.server";

export interface SignInAlertFacts {
  sub: string;
  email: string;
  sessionId: string;
  device: DeviceDescription;
  clientIp: string;
  requestLocale: Locale;
  now: Date;
}

/**
 * Queues the alert mail of a sign-in from a browser new to the member, inside the sign-in's transaction (one outbox
 * row). Whether the browser is new is the security record's word: the sign-in's own event says so (recordSignIn in
 * app/domain/security/security-record.server.ts, by the rule isKnownBrowser answers: only a sign-in or sign-up on
 * our pages makes a browser known, never a key a sibling registered), and the caller queues only when the browser is
 * new and the member had signed in before, so a known browser's sign-in writes nothing here. The mail goes once the
 * transaction commits (the caller rings the outbox).
 */
export async function queueSignInAlert(tx: Database, facts: SignInAlertFacts): Promise<void> {
  await queueMail(tx, {
    kind: "signInAlert",
    recipient: facts.email,
    sub: facts.sub,
    requestLocale: facts.requestLocale,
    now: facts.now,
    details: {
      sub: facts.sub,
      sessionId: facts.sessionId,
      signedInAt: facts.now.toISOString(),
      device: facts.device.deviceName,
      browser: facts.device.browser,
      clientIp: facts.clientIp,
    },
  });
}
