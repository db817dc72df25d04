import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { emailChangeTokens, memberSessions } from "~db/schema";
import type { Locale } from "~/i18n/locales";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { MailTexts, Mailer } from "~/integrations/mailer.server";
import { DomainError } from "../domain-error.server";
import { lockMember } from "../sessions/member-lock.server";
import { recordAccountEvent } from "../events/account-events.server";
import { recordSecurityEvent } from "../security/security-record.server";

/** The link in the confirmation mail works for one hour. */
export const EMAIL_CHANGE_TTL_MS = 60 * 60 * 1000;

export interface EmailChangeDependencies {
  db: Database;
  identity: Pick<IdentityProvider, "getUser" | "updateAttributes">;
  mailer: Mailer;
  /** The request's i18next instance, which the mails' text comes from. */
  mailTexts: MailTexts;
  /** The absolute URL of the page that confirms a change, in the member's language (the edge knows the routes). */
  confirmationLink: (token: string, locale: Locale) => string;
}

export type EmailChangeOutcome =
  | { kind: "changed"; sub: string; oldEmail: string; newEmail: string }
  /** Unknown, already used or past its hour: the page says the URL has expired. */
  | { kind: "expired" }
  /** Another account took the address between the request and the confirmation. */
  | { kind: "emailUnavailable" };

/** Only the SHA-256 of a token is ever stored or looked up. */
export function hashEmailChangeToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Whether another member's sign-in uses the address (the member's own address is not "taken"). */
export async function isAddressTaken(identity: Pick<IdentityProvider, "getUser">, email: string, sub: string) {
  try {
    const holder = await identity.getUser(email);
    return holder.sub !== sub;
  } catch (error) {
    if (error instanceof DomainError && error.code === "userNotFound") return false;
    throw error;
  }
}

/**
 * Starts an e-mail change: checks the new address is free, stores the hash of a fresh random token, and mails the
 * link to the new address in the member's language. When the mail cannot be sent the token row is deleted again
 * and the "mailUnavailable" DomainError is rethrown, so no usable half-made token is left behind.
 */
export async function requestEmailChange(
  deps: EmailChangeDependencies,
  input: { sub: string; currentEmail: string; newEmail: string; locale: Locale; now?: Date },
): Promise<{ expiresAt: Date }> {
  const newEmail = input.newEmail.trim().toLowerCase();
  if (newEmail === input.currentEmail.trim().toLowerCase()) throw new DomainError("sameAddress");
  if (await isAddressTaken(deps.identity, newEmail, input.sub)) throw new DomainError("emailUnavailable");

  const token = randomBytes(32).toString("base64url");
  const tokenHash = hashEmailChangeToken(token);
  const now = input.now ?? new Date();
  const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_TTL_MS);
  await deps.db.transaction(async (tx) => {
    // Only the newest request counts: earlier links stop working. Under the member's lock, so that two requests at
    // once (a double submit) cannot both leave a working link.
    await lockMember(tx, input.sub);
    await tx
      .delete(emailChangeTokens)
      .where(and(eq(emailChangeTokens.sub, input.sub), isNull(emailChangeTokens.usedAt)));
    await tx.insert(emailChangeTokens).values({
      tokenHash,
      sub: input.sub,
      oldEmail: input.currentEmail,
      newEmail,
      createdAt: now,
      expiresAt,
    });
  });

  try {
    await deps.mailer.sendEmailChangeLink({
      to: newEmail,
      locale: input.locale,
      texts: deps.mailTexts,
      link: deps.confirmationLink(token, input.locale),
    });
  } catch (error) {
    await deps.db.delete(emailChangeTokens).where(eq(emailChangeTokens.tokenHash, tokenHash));
    throw error;
  }
  return { expiresAt };
}

/** Whether a link would still work, without using it up: for showing the confirm page (a GET changes nothing). */
export async function isEmailChangeTokenUsable(db: Database, token: string, now: Date = new Date()): Promise<boolean> {
  const [row] = await db
    .select({ sub: emailChangeTokens.sub })
    .from(emailChangeTokens)
    .where(
      and(
        eq(emailChangeTokens.tokenHash, hashEmailChangeToken(token)),
        isNull(emailChangeTokens.usedAt),
        gt(emailChangeTokens.expiresAt, now),
      ),
    );
  return row !== undefined;
}

/**
 * Completes an e-mail change from the link, in one transaction: the token is claimed with one conditional UPDATE
 * (unused and unexpired), Cognito gets the new, verified address, and the member's sessions show it. The claimed row
 * stays locked until the end, so a second click waits and then finds the link used: the address changes once.
 * If Cognito fails the claim rolls back and the link works again within its hour; if the commit fails after Cognito
 * changed, the same link repairs it (setting the same address again is harmless), so Cognito and the sessions never
 * stay apart. The old address hears about the change afterwards (best effort).
 */
export async function confirmEmailChange(
  deps: EmailChangeDependencies,
  input: {
    token: string;
    now?: Date;
    locale?: Locale;
    /** Only a change this member asked for (the API's bearer); a page's link works for whoever opens it. */
    sub?: string;
    /** The client IP of the request that confirmed, for the member's security record. */
    clientIp: string;
  },
): Promise<EmailChangeOutcome> {
  const now = input.now ?? new Date();
  const tokenHash = hashEmailChangeToken(input.token);
  const outcome = await deps.db.transaction(async (tx): Promise<EmailChangeOutcome> => {
    const [claimed] = await tx
      .update(emailChangeTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(emailChangeTokens.tokenHash, tokenHash),
          isNull(emailChangeTokens.usedAt),
          gt(emailChangeTokens.expiresAt, now),
          input.sub ? eq(emailChangeTokens.sub, input.sub) : undefined,
        ),
      )
      .returning();
    if (!claimed) return { kind: "expired" };
    try {
      await deps.identity.updateAttributes(claimed.sub, { email: claimed.newEmail, email_verified: "true" });
    } catch (error) {
      // Another account took the address meanwhile: the link is used up (committed), nothing else changes.
      if (error instanceof DomainError && (error.code === "emailUnavailable" || error.code === "usernameExists")) {
        return { kind: "emailUnavailable" };
      }
      throw error;
    }
    await tx.update(memberSessions).set({ email: claimed.newEmail }).where(eq(memberSessions.sub, claimed.sub));
    await recordSecurityEvent(tx, {
      sub: claimed.sub,
      kind: "email-changed",
      ipAddress: input.clientIp,
      occurredAt: now,
    });
    await recordAccountEvent(tx, {
      type: "member.email_changed",
      sub: claimed.sub,
      occurredAt: now,
      data: { email: claimed.newEmail },
    });
    return { kind: "changed", sub: claimed.sub, oldEmail: claimed.oldEmail, newEmail: claimed.newEmail };
  });
  if (outcome.kind !== "changed") return outcome;

  const locale = input.locale ?? "ja";
  const notice = { to: outcome.oldEmail, locale, texts: deps.mailTexts, newEmail: outcome.newEmail };
  await deps.mailer.sendEmailChangedNotice(notice).catch(() => {
    // Best effort: the change is done; a missing notice must not undo it or show an error.
  });
  return outcome;
}
