import { and, asc, count, eq } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberPasskeys } from "~db/schema";
import type { Locale } from "~/i18n/locales";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { recordPasskeysChanged } from "../events/account-events.server";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { recordSecurityEvent } from "../security/security-record.server";
import { describeDevice } from "../sessions/device-description.server";

export type PasskeyDependencies = Pick<AppServices, "db" | "identity" | "clock">;

/** One passkey as /my/security/ lists it. */
export interface Passkey {
  credentialId: string;
  /** The member's own name, or null when it is called after where it was made. */
  name: string | null;
  madeOnDevice: string;
  madeOnBrowser: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** The name a passkey is shown and mailed by: the member's, else the browser and device that made it. */
export function passkeyLabel(passkey: Pick<Passkey, "name" | "madeOnDevice" | "madeOnBrowser">): string {
  return passkey.name ?? `${passkey.madeOnBrowser} / ${passkey.madeOnDevice}`;
}

/** The member's passkeys, oldest first, from our table alone (a page view asks Cognito nothing). */
export function listPasskeys(db: Database, sub: string): Promise<Passkey[]> {
  return db
    .select({
      credentialId: memberPasskeys.credentialId,
      name: memberPasskeys.name,
      madeOnDevice: memberPasskeys.madeOnDevice,
      madeOnBrowser: memberPasskeys.madeOnBrowser,
      createdAt: memberPasskeys.createdAt,
      lastUsedAt: memberPasskeys.lastUsedAt,
    })
    .from(memberPasskeys)
    .where(eq(memberPasskeys.sub, sub))
    .orderBy(asc(memberPasskeys.createdAt), asc(memberPasskeys.credentialId));
}

/** How many passkeys the member has (the sibling API's member view). */
export async function countPasskeys(db: Database, sub: string): Promise<number> {
  const [row] = await db.select({ passkeys: count() }).from(memberPasskeys).where(eq(memberPasskeys.sub, sub));
  return row?.passkeys ?? 0;
}

/** "Add a passkey", first step: Cognito's creation options for the browser (Cognito keeps the challenge). */
export function passkeyCreationOptions(
  deps: Pick<PasskeyDependencies, "identity">,
  input: { token: ServerToken },
): Promise<Record<string, unknown>> {
  return deps.identity.startPasskeyRegistration(input.token);
}

interface PasskeyChange {
  sub: string;
  email: string;
  /** The session's server token (the re-authentication step's): Cognito's passkey calls take no other. */
  token: ServerToken;
  /** The request's client IP and User-Agent, for the security record. */
  clientIp: string;
  userAgent: string | null;
  /** The page's language: the notice's when the member chose none. */
  locale: Locale;
}

/**
 * The security record's event, the siblings' `member.passkeys_changed` and the mail that tell of a passkey added or
 * removed, in the transaction that records the change.
 */
async function recordPasskeyChange(
  tx: Database,
  input: PasskeyChange & { change: "added" | "removed"; name: string; now: Date },
): Promise<void> {
  const device = describeDevice(input.userAgent);
  await recordSecurityEvent(tx, {
    sub: input.sub,
    kind: input.change === "added" ? "passkey-added" : "passkey-removed",
    occurredAt: input.now,
    deviceName: device.deviceName,
    browser: device.browser,
    ipAddress: input.clientIp,
  });
  await recordPasskeysChanged(tx, { sub: input.sub, change: input.change, now: input.now });
  await queueMail(tx, {
    kind: "passkeyChanged",
    details: { change: input.change, name: input.name, changedAt: input.now.toISOString() },
    recipient: input.email,
    sub: input.sub,
    requestLocale: input.locale,
    now: input.now,
  });
}

/**
 * "Add a passkey", second step: Cognito checks and stores the browser's new credential (a refusal comes out as
 * "passkeyRefused"); then our list gains it, named after this browser and device, and the member is told. The id is
 * the credential's own (RegistrationResponseJSON's `id`), which is Cognito's CredentialId.
 */
export async function addPasskey(
  deps: PasskeyDependencies,
  input: PasskeyChange & { credential: { id: string } & Record<string, unknown> },
): Promise<Passkey> {
  const now = deps.clock.now();
  const device = describeDevice(input.userAgent);
  const passkey: Passkey = {
    credentialId: input.credential.id,
    name: null,
    madeOnDevice: device.deviceName,
    madeOnBrowser: device.browser,
    createdAt: now,
    lastUsedAt: null,
  };
  // Listed before Cognito stores it: the reconcile of the member's passkeys (after a sign-in) must find it ours while
  // it is being added, or it would take it for one added around our pages and delete it.
  const listed = await deps.db
    .insert(memberPasskeys)
    .values({ ...passkey, sub: input.sub })
    .onConflictDoNothing()
    .returning({ credentialId: memberPasskeys.credentialId });
  try {
    await deps.identity.completePasskeyRegistration({ token: input.token, credential: input.credential });
  } catch (error) {
    if (listed.length > 0) {
      await deps.db
        .delete(memberPasskeys)
        .where(and(eq(memberPasskeys.sub, input.sub), eq(memberPasskeys.credentialId, input.credential.id)));
    }
    throw error;
  }
  await deps.db.transaction((tx) =>
    recordPasskeyChange(tx, { ...input, change: "added", name: passkeyLabel(passkey), now }),
  );
  ringMailOutbox();
  return passkey;
}

/** Renames one of the member's passkeys (an empty name: back to where it was made). False: not theirs. */
export async function renamePasskey(
  db: Database,
  input: { sub: string; credentialId: string; name?: string | undefined },
): Promise<boolean> {
  const renamed = await db
    .update(memberPasskeys)
    .set({ name: input.name || null })
    .where(and(eq(memberPasskeys.sub, input.sub), eq(memberPasskeys.credentialId, input.credentialId)))
    .returning({ credentialId: memberPasskeys.credentialId });
  return renamed.length > 0;
}

/**
 * Deletes one of the member's passkeys at Cognito (with their server token: only their own can go), then from our
 * list, recorded and mailed. One already gone at Cognito is removed from the list all the same. Null: the member
 * has no passkey by that id.
 */
export async function removePasskey(
  deps: PasskeyDependencies,
  input: PasskeyChange & { credentialId: string },
): Promise<Passkey | null> {
  const [passkey] = (await listPasskeys(deps.db, input.sub)).filter(
    (candidate) => candidate.credentialId === input.credentialId,
  );
  if (!passkey) return null;
  try {
    await deps.identity.deletePasskey({ token: input.token, credentialId: input.credentialId });
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "passkeyNotFound")) throw error;
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const deleted = await tx
      .delete(memberPasskeys)
      .where(and(eq(memberPasskeys.sub, input.sub), eq(memberPasskeys.credentialId, input.credentialId)))
      .returning({ credentialId: memberPasskeys.credentialId });
    // A second delete of the same passkey (a double submit) records and mails nothing more.
    if (deleted.length > 0)
      await recordPasskeyChange(tx, { ...input, change: "removed", name: passkeyLabel(passkey), now });
  });
  ringMailOutbox();
  return passkey;
}

/** A passkey sign-in succeeded: the list says when the passkey was last used. */
export async function recordPasskeyUse(
  db: Database,
  input: { sub: string; credentialId: string; at: Date },
): Promise<void> {
  await db
    .update(memberPasskeys)
    .set({ lastUsedAt: input.at })
    .where(and(eq(memberPasskeys.sub, input.sub), eq(memberPasskeys.credentialId, input.credentialId)));
}
