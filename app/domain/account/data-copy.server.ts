import { asc, desc, eq } from "drizzle-orm";
import type { Database } from "~db/client.server";
import {
  emailChangeTokens,
  invitationResends,
  legacyCredentials,
  memberDirectory,
  memberPasskeys,
  memberProfiles,
  memberSessions,
  recoveryCodes,
  securityEvents,
  staffAuditEvents,
  twoStepVerifications,
  withdrawalReasons,
} from "~db/schema";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { AppServices } from "~/services.server";
import { recordSecurityEvent } from "../security/security-record.server";

/**
 * The member's copy of everything held about them (APPI Article 33, GDPR Articles 15 and 20), documented field by
 * field in docs/data-copy.md. Raise the version when a field changes meaning or goes; a new field or section does
 * not break a reader and keeps it.
 */
export const DATA_COPY_SCHEMA_VERSION = 2;

/** A JSON value: dates become ISO 8601 strings (UTC) before anything leaves the domain. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

/** Who the copy is of, and what a section may read. */
export interface DataCopySource {
  db: Database;
  sub: string;
  email: string;
  /**
   * Cognito, for a member the directory has no row for yet; null for a page view, which must make no Cognito call
   * (the identity section then says the directory has no copy).
   */
  identity: Pick<IdentityProvider, "getUser"> | null;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/**
 * Cognito's attributes as the member directory mirrors them (kept current by the app's own Cognito writes, staff
 * refreshes and the reconcile job), so a page view needs no Cognito call. Only a download for a member the
 * directory has not seen yet reads AdminGetUser, once.
 */
async function identitySection(source: DataCopySource): Promise<JsonObject> {
  const [row] = await source.db.select().from(memberDirectory).where(eq(memberDirectory.sub, source.sub));
  if (row) {
    return {
      source: "directory",
      email: row.email,
      emailVerified: row.emailVerified,
      status: row.cognitoStatus,
      enabled: row.enabled,
      locale: row.locale,
      familyName: row.familyName,
      givenName: row.givenName,
      groups: row.groups,
      signedUpAt: iso(row.signedUpAt),
      updatedAt: iso(row.cognitoUpdatedAt),
      copiedAt: iso(row.syncedAt),
    };
  }
  if (!source.identity) return { source: null };
  const user = await source.identity.getUser(source.email);
  const attribute = (name: string) => user.attributes[name] ?? null;
  return {
    source: "identityProvider",
    email: user.email,
    emailVerified: user.emailVerified,
    status: user.status,
    enabled: user.enabled,
    locale: attribute("locale"),
    familyName: attribute("family_name"),
    givenName: attribute("given_name"),
    groups: null,
    signedUpAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
    copiedAt: null,
  };
}

async function storedProfile(source: DataCopySource) {
  const [row] = await source.db.select().from(memberProfiles).where(eq(memberProfiles.sub, source.sub));
  return row ?? null;
}

/** The profile and the sign-up questionnaire's answers, as the member gave them. */
async function profileSection(source: DataCopySource): Promise<JsonObject | null> {
  const row = await storedProfile(source);
  if (!row) return null;
  return {
    familyName: row.familyName,
    givenName: row.givenName,
    birthYear: row.birthYear,
    country: row.country,
    prefecture: row.prefecture,
    occupation: row.occupation,
    organization: row.organization,
    preferredLanguage: row.preferredLanguage,
    questionnaire: (row.questionnaire ?? null) as JsonValue,
    referrerService: row.referrerService,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The member's newsletter choice (on until they turn it off), in the profile's preferred language. */
async function newsletterSection(source: DataCopySource): Promise<JsonObject> {
  const row = await storedProfile(source);
  return { receives: row?.receivesNewsletter ?? true, language: row?.preferredLanguage ?? null };
}

/** Every browser signed in as the member, live or ended; never the tokens, the device key or the session id. */
async function sessionsSection(source: DataCopySource): Promise<JsonObject[]> {
  const rows = await source.db
    .select({
      deviceName: memberSessions.deviceName,
      browser: memberSessions.browser,
      email: memberSessions.email,
      createdAt: memberSessions.createdAt,
      activatedAt: memberSessions.activatedAt,
      lastLoginAt: memberSessions.lastLoginAt,
      passwordVerifiedAt: memberSessions.passwordVerifiedAt,
      revokedAt: memberSessions.revokedAt,
    })
    .from(memberSessions)
    .where(eq(memberSessions.sub, source.sub))
    .orderBy(desc(memberSessions.createdAt));
  return rows.map((row) => ({
    deviceName: row.deviceName,
    browser: row.browser,
    email: row.email,
    live: row.revokedAt === null && row.activatedAt !== null,
    signedInAt: iso(row.createdAt),
    activatedAt: iso(row.activatedAt),
    lastLoginAt: iso(row.lastLoginAt),
    passwordVerifiedAt: iso(row.passwordVerifiedAt),
    endedAt: iso(row.revokedAt),
  }));
}

/**
 * The member's security record, newest first (everything it keeps, 400 days); never the browser's device-key hash
 * nor the session id.
 */
async function securityRecordSection(source: DataCopySource): Promise<JsonObject[]> {
  const rows = await source.db
    .select({
      kind: securityEvents.kind,
      occurredAt: securityEvents.occurredAt,
      deviceName: securityEvents.deviceName,
      browser: securityEvents.browser,
      ipAddress: securityEvents.ipAddress,
      newBrowser: securityEvents.newBrowser,
      attempts: securityEvents.attempts,
      lastOccurredAt: securityEvents.lastOccurredAt,
    })
    .from(securityEvents)
    .where(eq(securityEvents.sub, source.sub))
    .orderBy(desc(securityEvents.occurredAt), desc(securityEvents.id));
  return rows.map((row) => ({
    kind: row.kind,
    occurredAt: iso(row.occurredAt),
    deviceName: row.deviceName,
    browser: row.browser,
    ipAddress: row.ipAddress,
    newBrowser: row.newBrowser,
    attempts: row.attempts,
    lastOccurredAt: iso(row.lastOccurredAt),
  }));
}

/**
 * 2-step verification with an authenticator app (null when off): since when, and the recovery codes' dates and how
 * many are left; never the codes' hashes. The authenticator's secret is only at Cognito.
 */
async function twoStepVerificationSection(source: DataCopySource): Promise<JsonObject | null> {
  const [turnedOn] = await source.db
    .select({ enabledAt: twoStepVerifications.enabledAt })
    .from(twoStepVerifications)
    .where(eq(twoStepVerifications.sub, source.sub));
  if (!turnedOn) return null;
  const codes = await source.db
    .select({ createdAt: recoveryCodes.createdAt, usedAt: recoveryCodes.usedAt })
    .from(recoveryCodes)
    .where(eq(recoveryCodes.sub, source.sub))
    .orderBy(asc(recoveryCodes.usedAt));
  return {
    turnedOnAt: iso(turnedOn.enabledAt),
    recoveryCodesMadeAt: iso(codes[0]?.createdAt ?? null),
    recoveryCodesLeft: codes.filter((code) => code.usedAt === null).length,
    recoveryCodesUsedAt: codes.flatMap((code) => (code.usedAt ? [iso(code.usedAt)] : [])),
  };
}

/** The member's passkeys as /my/security/ lists them; the credentials themselves are only at Cognito. */
async function passkeysSection(source: DataCopySource): Promise<JsonObject[]> {
  const rows = await source.db
    .select({
      name: memberPasskeys.name,
      madeOnDevice: memberPasskeys.madeOnDevice,
      madeOnBrowser: memberPasskeys.madeOnBrowser,
      createdAt: memberPasskeys.createdAt,
      lastUsedAt: memberPasskeys.lastUsedAt,
    })
    .from(memberPasskeys)
    .where(eq(memberPasskeys.sub, source.sub))
    .orderBy(asc(memberPasskeys.createdAt));
  return rows.map((row) => ({
    name: row.name,
    deviceName: row.madeOnDevice,
    browser: row.madeOnBrowser,
    addedAt: iso(row.createdAt),
    lastUsedAt: iso(row.lastUsedAt),
  }));
}

/** When "forgot password" last sent an invited member a new temporary password (null when never). */
async function invitationSection(source: DataCopySource): Promise<JsonObject | null> {
  const [row] = await source.db
    .select({ resentAt: invitationResends.resentAt })
    .from(invitationResends)
    .where(eq(invitationResends.sub, source.sub));
  return row ? { resentAt: iso(row.resentAt) } : null;
}

/** Requested e-mail changes; never the link's token or its hash. */
async function emailChangesSection(source: DataCopySource): Promise<JsonObject[]> {
  const rows = await source.db
    .select({
      oldEmail: emailChangeTokens.oldEmail,
      newEmail: emailChangeTokens.newEmail,
      createdAt: emailChangeTokens.createdAt,
      expiresAt: emailChangeTokens.expiresAt,
      usedAt: emailChangeTokens.usedAt,
    })
    .from(emailChangeTokens)
    .where(eq(emailChangeTokens.sub, source.sub))
    .orderBy(desc(emailChangeTokens.createdAt));
  return rows.map((row) => ({
    oldEmail: row.oldEmail,
    newEmail: row.newEmail,
    requestedAt: iso(row.createdAt),
    linkExpiresAt: iso(row.expiresAt),
    confirmedAt: iso(row.usedAt),
  }));
}

async function cancellationSection(source: DataCopySource): Promise<JsonObject> {
  const row = await storedProfile(source);
  const reasons = await source.db
    .select({ reason: withdrawalReasons.reason, detail: withdrawalReasons.detail, at: withdrawalReasons.createdAt })
    .from(withdrawalReasons)
    .where(eq(withdrawalReasons.sub, source.sub))
    .orderBy(asc(withdrawalReasons.createdAt));
  return {
    cancelledAt: iso(row?.cancelledAt ?? null),
    identityDeletedAt: iso(row?.cognitoDeletedAt ?? null),
    reasons: reasons.map((reason) => ({ reason: reason.reason, detail: reason.detail, givenAt: iso(reason.at) })),
  };
}

/** A pre-July-2021 account moved over at sign-in; never its old password hash. */
async function legacyAccountSection(source: DataCopySource): Promise<JsonObject | null> {
  const [row] = await source.db
    .select({
      email: legacyCredentials.email,
      profile: legacyCredentials.profile,
      importedAt: legacyCredentials.importedAt,
      migratedAt: legacyCredentials.migratedAt,
    })
    .from(legacyCredentials)
    .where(eq(legacyCredentials.migratedSub, source.sub));
  if (!row) return null;
  return {
    email: row.email,
    profile: row.profile as JsonObject,
    importedAt: iso(row.importedAt),
    migratedAt: iso(row.migratedAt),
  };
}

/** How the copy names a staff member: their role and a number, never who they are. */
export const STAFF_PSEUDONYM = /^staff-(\d+)$/;

/**
 * What staff did to the account: what, when, the state before and after, and by whom as a pseudonym. The staff
 * member's address (or sub) would hand a colleague's personal data to the member; `staff-1`, `staff-2` … number them
 * in the order they first acted on this account, so the member can tell one from another, and the operator can find
 * them in the audit log by the action and its time.
 */
async function staffActionsSection(source: DataCopySource): Promise<JsonObject[]> {
  const rows = await source.db
    .select({
      occurredAt: staffAuditEvents.occurredAt,
      actorSub: staffAuditEvents.actorSub,
      action: staffAuditEvents.action,
      before: staffAuditEvents.before,
      after: staffAuditEvents.after,
    })
    .from(staffAuditEvents)
    .where(eq(staffAuditEvents.targetSub, source.sub))
    .orderBy(desc(staffAuditEvents.occurredAt), desc(staffAuditEvents.id));
  const pseudonyms = new Map<string, string>();
  for (const { actorSub } of rows.toReversed()) {
    if (!pseudonyms.has(actorSub)) pseudonyms.set(actorSub, `staff-${pseudonyms.size + 1}`);
  }
  return rows.map((row) => ({
    occurredAt: iso(row.occurredAt),
    staff: pseudonyms.get(row.actorSub)!,
    action: row.action,
    before: (row.before ?? null) as JsonValue,
    after: (row.after ?? null) as JsonValue,
  }));
}

/**
 * The copy's sections, in the order the file and the page show them. Each reads only the member's own rows, by the
 * sub of the signed-in session. A new store of member data adds its section here and to docs/data-copy.md.
 */
export const DATA_COPY_SECTIONS = {
  identity: identitySection,
  profile: profileSection,
  newsletter: newsletterSection,
  sessions: sessionsSection,
  twoStepVerification: twoStepVerificationSection,
  passkeys: passkeysSection,
  securityRecord: securityRecordSection,
  emailChanges: emailChangesSection,
  cancellation: cancellationSection,
  legacyAccount: legacyAccountSection,
  invitation: invitationSection,
  staffActions: staffActionsSection,
} satisfies Record<string, (source: DataCopySource) => Promise<JsonValue>>;

export type DataCopySectionName = keyof typeof DATA_COPY_SECTIONS;

export interface DataCopy {
  schemaVersion: number;
  generatedAt: string;
  member: { sub: string; email: string };
  sections: Record<DataCopySectionName, JsonValue>;
}

/** Everything held about the member, section by section. */
export async function collectDataCopy(source: DataCopySource, now: Date): Promise<DataCopy> {
  const names = Object.keys(DATA_COPY_SECTIONS) as DataCopySectionName[];
  const sections = {} as Record<DataCopySectionName, JsonValue>;
  // One after another: PGlite has one connection, and a copy is rare.
  for (const name of names) sections[name] = await DATA_COPY_SECTIONS[name](source);
  return {
    schemaVersion: DATA_COPY_SCHEMA_VERSION,
    generatedAt: now.toISOString(),
    member: { sub: source.sub, email: source.email },
    sections,
  };
}

/**
 * The download: the copy as one JSON file, Cognito asked only for a member the directory has not seen, and the
 * download recorded as the member's security event.
 */
export async function downloadDataCopy(
  deps: Pick<AppServices, "db" | "identity" | "clock">,
  input: { sub: string; email: string; sessionId: string; clientIp: string },
): Promise<{ json: string; generatedAt: Date }> {
  const generatedAt = deps.clock.now();
  const copy = await collectDataCopy(
    { db: deps.db, sub: input.sub, email: input.email, identity: deps.identity },
    generatedAt,
  );
  await recordSecurityEvent(deps.db, {
    kind: "data-copy-downloaded",
    sub: input.sub,
    sessionId: input.sessionId,
    ipAddress: input.clientIp,
    occurredAt: generatedAt,
  });
  return { json: `${JSON.stringify(copy, null, 2)}\n`, generatedAt };
}
