import { and, asc, count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { memberPasskeys, pendingCognitoChanges } from "~db/schema";
import { LOCALES, type Locale } from "~/i18n/locales";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { recordPasskeysChanged } from "../events/account-events.server";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { passkeysOfferedFor } from "../security/factor-reconcile.server";
import { recordSecurityEvent } from "../security/security-record.server";
import { describeDevice } from "../sessions/device-description.server";
import {
  type PendingCognitoChange,
  claimPendingCognitoChange,
  cognitoAnswerUnclear,
  dropPendingCognitoChange,
  notePendingCognitoChange,
} from "./pending-cognito-changes.server";

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

/** What a passkey change records and mails: no token (the repair records one without the member's request). */
type PasskeyChangeRecord = Omit<PasskeyChange, "token">;

/**
 * The security record's event, the siblings' `member.passkeys_changed` and the mail that tell of a passkey added or
 * removed, in the transaction that records the change.
 */
async function recordPasskeyChange(
  tx: Database,
  input: PasskeyChangeRecord & { change: "added" | "removed"; name: string; now: Date },
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

/** What adding a passkey notes before Cognito is asked (pending-cognito-changes.server.ts). */
const PasskeyAddNoteSchema = z.object({
  credentialId: z.string(),
  name: z.string(),
  /** Whether this addition listed it (a double submit finds it listed by the first). */
  listed: z.boolean(),
  clientIp: z.string(),
  userAgent: z.string().nullable(),
  locale: z.enum(LOCALES),
});
type PasskeyAddNote = z.infer<typeof PasskeyAddNoteSchema>;

/**
 * The passkey is recorded as added: any other note of adding it (an earlier attempt whose answer was unclear) is
 * settled by this record too, so it is announced once.
 */
async function settleNotesOfPasskey(tx: Database, input: { sub: string; credentialId: string }) {
  await tx
    .delete(pendingCognitoChanges)
    .where(
      and(
        eq(pendingCognitoChanges.sub, input.sub),
        eq(pendingCognitoChanges.kind, "passkey-added"),
        sql`${pendingCognitoChanges.data}->>'credentialId' = ${input.credentialId}`,
      ),
    );
}

/** A passkey Cognito did not store: its note goes, and so does its place in our list if this addition made it. */
async function forgetPasskeyBeingAdded(db: Database, input: { pendingId: string; sub: string; note: PasskeyAddNote }) {
  await db.transaction(async (tx) => {
    await dropPendingCognitoChange(tx, input.pendingId);
    if (input.note.listed) {
      await tx
        .delete(memberPasskeys)
        .where(and(eq(memberPasskeys.sub, input.sub), eq(memberPasskeys.credentialId, input.note.credentialId)));
    }
  });
}

/**
 * "Add a passkey", second step: Cognito checks and stores the browser's new credential (a refusal comes out as
 * "passkeyRefused"); then our list gains it, named after this browser and device, and the member is told. The id is
 * the credential's own (RegistrationResponseJSON's `id`), which is Cognito's CredentialId. Listed and noted before
 * Cognito is asked: when Cognito's answer is unclear, or the process dies before the record, both stay and the
 * repair records the passkey or takes it off the list by what Cognito holds.
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
  const { note, pendingId } = await deps.db.transaction(async (tx) => {
    const listed = await tx
      .insert(memberPasskeys)
      .values({ ...passkey, sub: input.sub })
      .onConflictDoNothing()
      .returning({ credentialId: memberPasskeys.credentialId });
    const note: PasskeyAddNote = {
      credentialId: passkey.credentialId,
      name: passkeyLabel(passkey),
      listed: listed.length > 0,
      clientIp: input.clientIp,
      userAgent: input.userAgent,
      locale: input.locale,
    };
    const pendingId = await notePendingCognitoChange(tx, {
      sub: input.sub,
      email: input.email,
      kind: "passkey-added",
      data: note,
      now,
    });
    return { note, pendingId };
  });
  try {
    await deps.identity.completePasskeyRegistration({ token: input.token, credential: input.credential });
  } catch (error) {
    if (!cognitoAnswerUnclear(error)) await forgetPasskeyBeingAdded(deps.db, { pendingId, sub: input.sub, note });
    throw error;
  }
  const recorded = await deps.db.transaction(async (tx) => {
    // Gone: the repair found the passkey at Cognito and recorded it.
    if (!(await claimPendingCognitoChange(tx, pendingId))) return false;
    await settleNotesOfPasskey(tx, { sub: input.sub, credentialId: note.credentialId });
    await recordPasskeyChange(tx, { ...input, change: "added", name: note.name, now });
    return true;
  });
  if (recorded) ringMailOutbox();
  return passkey;
}

/**
 * For the repair: whether Cognito holds the noted passkey, as Cognito's passkey sign-in offers the member's
 * passkeys (no token of the member's is needed). False when Cognito no longer knows the member.
 */
export async function passkeyAddHappened(
  deps: Pick<PasskeyDependencies, "identity">,
  change: PendingCognitoChange,
): Promise<boolean> {
  const { credentialId } = PasskeyAddNoteSchema.parse(change.data);
  const user = change.sub ? await deps.identity.findUser(change.sub) : null;
  if (!user) return false;
  return (await passkeysOfferedFor(deps, user.email)).includes(credentialId);
}

/** For the repair, in the transaction that claimed the note: the passkey Cognito stored, recorded and mailed. */
export async function finishPasskeyAdded(tx: Database, change: PendingCognitoChange, now: Date): Promise<void> {
  const note = PasskeyAddNoteSchema.parse(change.data);
  await settleNotesOfPasskey(tx, { sub: change.sub!, credentialId: note.credentialId });
  await recordPasskeyChange(tx, {
    sub: change.sub!,
    email: change.email,
    clientIp: note.clientIp,
    userAgent: note.userAgent,
    locale: note.locale,
    change: "added",
    name: note.name,
    now,
  });
}

/** For the repair: a passkey Cognito did not store leaves the list it was put on, announced nowhere. */
export function dropPasskeyNeverAdded(db: Database, change: PendingCognitoChange): Promise<void> {
  return forgetPasskeyBeingAdded(db, {
    pendingId: change.id,
    sub: change.sub!,
    note: PasskeyAddNoteSchema.parse(change.data),
  });
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
