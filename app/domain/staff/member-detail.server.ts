import { asc, desc, eq, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import {
  emailChangeTokens,
  legacyCredentials,
  memberDirectory,
  memberProfiles,
  memberSessions,
  withdrawalReasons,
} from "~db/schema";
import { storableText } from "../forms/field-schemas";
import { type MemberStatus, searchTermOf } from "./member-search.server";

/**
 * Everything the staff's member page shows about one member, read from our own tables (Cognito is asked only
 * when staff refresh). Secrets never leave here: no refresh tokens, device keys, token hashes or password hashes.
 * The audit trail is listed by listAuditEvents.
 */
export interface MemberDetail {
  sub: string;
  /** The mirror of the Cognito user; null when only a profile is left (the user is gone from the directory). */
  directory: DirectoryEntry | null;
  profile: StoredProfile | null;
  /** Signed-in browsers first, then the others by last sign-in. */
  sessions: SessionEntry[];
  /** Newest first: changes made (used) and requested (pending or expired). */
  emailChanges: EmailChangeEntry[];
  /** The latest cancellation's answers; null when the member never cancelled. */
  cancellation: CancellationEntry | null;
  /** The imported pre-2021 account this member was migrated from; null when none. */
  legacy: LegacyEntry | null;
}

export interface DirectoryEntry {
  username: string;
  email: string;
  emailVerified: boolean;
  cognitoStatus: string;
  enabled: boolean;
  status: MemberStatus;
  signedUpAt: Date;
  cognitoUpdatedAt: Date;
  locale: string | null;
  familyName: string | null;
  givenName: string | null;
  groups: string[];
  referrerService: string | null;
  cancelledAt: Date | null;
  legacyMigratedAt: Date | null;
  syncedAt: Date;
  seenInCognitoAt: Date | null;
  missingFromCognitoAt: Date | null;
}

export type StoredProfile = Omit<typeof memberProfiles.$inferSelect, "sub">;

export interface SessionEntry {
  id: string;
  deviceName: string;
  browser: string;
  createdAt: Date;
  lastLoginAt: Date;
  /** Null while the sign-in waits on the device-limit screen. */
  activatedAt: Date | null;
  revokedAt: Date | null;
  /** Signed in now: activated and not ended. */
  live: boolean;
}

export interface EmailChangeEntry {
  oldEmail: string;
  newEmail: string;
  requestedAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  state: "used" | "pending" | "expired";
}

export interface CancellationEntry {
  reason: string;
  detail: string | null;
  locale: string;
  cancelledAt: Date;
}

export interface LegacyEntry {
  email: string;
  importedAt: Date;
  migratedAt: Date | null;
}

/** The member page's data for `sub`, or null when neither the directory nor a profile knows it. */
export async function findMemberDetail(db: Database, sub: string, now = new Date()): Promise<MemberDetail | null> {
  const [directory, profile, sessions, emailChanges, cancellation, legacy] = await Promise.all([
    selectDirectoryEntry(db, sub),
    selectProfile(db, sub),
    selectSessions(db, sub),
    selectEmailChanges(db, sub, now),
    selectCancellation(db, sub),
    selectLegacy(db, sub),
  ]);
  if (!directory && !profile) return null;
  return { sub, directory, profile, sessions, emailChanges, cancellation, legacy };
}

async function selectDirectoryEntry(db: Database, sub: string): Promise<DirectoryEntry | null> {
  const d = memberDirectory;
  const [row] = await db
    .select({
      username: d.username,
      email: d.email,
      emailVerified: d.emailVerified,
      cognitoStatus: d.cognitoStatus,
      enabled: d.enabled,
      status: sql<MemberStatus>`${d.memberStatus}`,
      signedUpAt: d.signedUpAt,
      cognitoUpdatedAt: d.cognitoUpdatedAt,
      locale: d.locale,
      familyName: d.familyName,
      givenName: d.givenName,
      groups: d.groups,
      referrerService: d.referrerService,
      cancelledAt: d.cancelledAt,
      legacyMigratedAt: d.legacyMigratedAt,
      syncedAt: d.syncedAt,
      seenInCognitoAt: d.seenInCognitoAt,
      missingFromCognitoAt: d.missingFromCognitoAt,
    })
    .from(d)
    .where(eq(d.sub, sub));
  return row ?? null;
}

async function selectProfile(db: Database, sub: string): Promise<StoredProfile | null> {
  const [row] = await db.select().from(memberProfiles).where(eq(memberProfiles.sub, sub));
  if (!row) return null;
  const { sub: _sub, ...profile } = row;
  return profile;
}

async function selectSessions(db: Database, sub: string): Promise<SessionEntry[]> {
  const s = memberSessions;
  const live = sql<boolean>`(${s.revokedAt} is null and ${s.activatedAt} is not null)`;
  return db
    .select({
      id: s.id,
      deviceName: s.deviceName,
      browser: s.browser,
      createdAt: s.createdAt,
      lastLoginAt: s.lastLoginAt,
      activatedAt: s.activatedAt,
      revokedAt: s.revokedAt,
      live,
    })
    .from(s)
    .where(eq(s.sub, sub))
    .orderBy(desc(live), desc(s.lastLoginAt), asc(s.id));
}

async function selectEmailChanges(db: Database, sub: string, now: Date): Promise<EmailChangeEntry[]> {
  const t = emailChangeTokens;
  const rows = await db
    .select({
      oldEmail: t.oldEmail,
      newEmail: t.newEmail,
      requestedAt: t.createdAt,
      expiresAt: t.expiresAt,
      usedAt: t.usedAt,
    })
    .from(t)
    .where(eq(t.sub, sub))
    .orderBy(desc(t.createdAt));
  return rows.map((row) => ({
    ...row,
    state: row.usedAt ? "used" : row.expiresAt > now ? "pending" : "expired",
  }));
}

async function selectCancellation(db: Database, sub: string): Promise<CancellationEntry | null> {
  const w = withdrawalReasons;
  const [row] = await db
    .select({ reason: w.reason, detail: w.detail, locale: w.locale, cancelledAt: w.createdAt })
    .from(w)
    .where(eq(w.sub, sub))
    .orderBy(desc(w.createdAt))
    .limit(1);
  return row ?? null;
}

async function selectLegacy(db: Database, sub: string): Promise<LegacyEntry | null> {
  const l = legacyCredentials;
  const [row] = await db
    .select({ email: l.email, importedAt: l.importedAt, migratedAt: l.migratedAt })
    .from(l)
    .where(eq(l.migratedSub, sub))
    .orderBy(asc(l.migratedAt))
    .limit(1);
  return row ?? null;
}

/**
 * "Open a member" by what staff have at hand: a sub as typed, or an e-mail address matched exactly, ignoring
 * case. Among users that shared an address over time, the one Cognito still has and then the newest wins.
 */
export async function findSubByEmailOrSub(db: Database, text: string): Promise<string | null> {
  const term = searchTermOf(text);
  // Text PostgreSQL cannot hold (a NUL) names nobody; the query would fail rather than find nothing.
  if (!term || !storableText().safeParse(text).success) return null;
  if (term.kind === "sub") return term.sub;
  const d = memberDirectory;
  const [row] = await db
    .select({ sub: d.sub })
    .from(d)
    // collate "C": the e-mail key's index holds it so (an equality under another collation could not use it).
    .where(sql`${d.emailKey} collate "C" = ${text.trim().toLowerCase()}`)
    .orderBy(sql`${d.missingFromCognitoAt} is not null`, desc(d.signedUpAt))
    .limit(1);
  return row?.sub ?? null;
}
