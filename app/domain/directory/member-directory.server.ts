import { type SQL, and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory } from "~db/schema";
import type { IdentityProvider, IdentityUser } from "~/integrations/cognito/identity-provider.server";
import type { UserAttributes } from "~/integrations/cognito/cognito-calls.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices, Clock } from "~/services.server";
import { DomainError } from "../domain-error.server";

export type DirectoryEntry = typeof memberDirectory.$inferSelect;

/** The columns Cognito is the source of, as one user's answer gives them. */
type IdentityColumns = Pick<
  DirectoryEntry,
  | "sub"
  | "username"
  | "email"
  | "emailVerified"
  | "cognitoStatus"
  | "enabled"
  | "signedUpAt"
  | "cognitoUpdatedAt"
  | "locale"
  | "familyName"
  | "givenName"
  | "groups"
>;

/**
 * The fields whose change is drift worth reporting. cognitoUpdatedAt is written but not compared: the app's own
 * writes record the app's clock, which never equals Cognito's UserLastModifiedDate, so every write would read as drift.
 */
const COMPARED_FIELDS = [
  "email",
  "emailVerified",
  "cognitoStatus",
  "enabled",
  "locale",
  "familyName",
  "givenName",
  "groups",
  "signedUpAt",
] as const;

/**
 * signedUpAt recorded after the app's own sign-up is the app's clock, a moment after Cognito's UserCreateDate (which
 * Cognito also gives to the second): within this, the two are the same sign-up.
 */
export const SIGNED_UP_AT_TOLERANCE_MS = 60_000;

/** With e-mail as the pool's username attribute, Cognito's Username is the sub. */
function identityColumnsOf(user: IdentityUser, groups: string[]): IdentityColumns {
  return {
    sub: user.sub,
    username: user.sub,
    email: user.email,
    emailVerified: user.emailVerified,
    cognitoStatus: user.status,
    enabled: user.enabled,
    signedUpAt: user.createdAt,
    cognitoUpdatedAt: user.updatedAt,
    locale: user.attributes.locale ?? null,
    familyName: user.attributes.family_name ?? null,
    givenName: user.attributes.given_name ?? null,
    groups: [...groups].sort(),
  };
}

function sameGroups(a: string[], b: string[]): boolean {
  const sortedA = [...a].sort();
  const sortedB = [...b].sort();
  return sortedA.length === sortedB.length && sortedA.every((group, index) => group === sortedB[index]);
}

/** The compared fields in which Cognito's answer differs from the row; a row Cognito had lost counts as changed too. */
export function changedIdentityFields(before: DirectoryEntry, user: IdentityColumns): string[] {
  const changed: string[] = COMPARED_FIELDS.filter((field) => {
    if (field === "groups") return !sameGroups(before.groups, user.groups);
    if (field === "signedUpAt") {
      return Math.abs(before.signedUpAt.getTime() - user.signedUpAt.getTime()) > SIGNED_UP_AT_TOLERANCE_MS;
    }
    return before[field] !== user[field];
  });
  if (before.missingFromCognitoAt) changed.push("missingFromCognitoAt");
  return changed;
}

const toSnakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const excluded = (key: string): SQL => sql.raw(`excluded.${toSnakeCase(key)}`);

export interface DirectorySave {
  before: DirectoryEntry | null;
  after: DirectoryEntry;
  changedFields: string[];
}

/**
 * Upserts the rows from Cognito's answers (one statement for a whole ListUsers page). Marks them seen and present.
 * The copies of our own columns are taken again too: the insert trigger fills them on the proposed row, and the
 * update takes them from it, so a copy that missed an update (a row inserted while another transaction was still
 * writing the legacy or profile row) heals here.
 */
export async function saveManyFromCognito(
  db: Database,
  answers: { user: IdentityUser; groups: string[] }[],
  now: Date,
): Promise<DirectorySave[]> {
  if (answers.length === 0) return [];
  const rows = answers.map(({ user, groups }) => ({
    ...identityColumnsOf(user, groups),
    syncedAt: now,
    seenInCognitoAt: now,
    missingFromCognitoAt: null,
  }));
  const subs = rows.map((row) => row.sub);
  const beforeRows = await db.select().from(memberDirectory).where(inArray(memberDirectory.sub, subs));
  const beforeBySub = new Map(beforeRows.map((row) => [row.sub, row]));
  const updatedKeys = [
    ...Object.keys(rows[0]!).filter((key) => key !== "sub"),
    "referrerService",
    "cancelledAt",
    "legacyMigratedAt",
  ];
  const afterRows = await db
    .insert(memberDirectory)
    .values(rows)
    .onConflictDoUpdate({
      target: memberDirectory.sub,
      set: Object.fromEntries(updatedKeys.map((key) => [key, excluded(key)])),
    })
    .returning();
  const afterBySub = new Map(afterRows.map((row) => [row.sub, row]));
  return rows.map((row) => {
    const before = beforeBySub.get(row.sub) ?? null;
    return {
      before,
      after: afterBySub.get(row.sub)!,
      changedFields: before ? changedIdentityFields(before, row) : [],
    };
  });
}

/** Writes one user's row from Cognito's answer (AdminGetUser and AdminListGroupsForUser). */
export async function saveFromCognito(
  db: Database,
  user: IdentityUser,
  groups: string[],
  now: Date,
): Promise<DirectorySave> {
  const [saved] = await saveManyFromCognito(db, [{ user, groups }], now);
  return saved!;
}

/** Cognito no longer has the user: the row stays (staff still find a cancelled member) and says so. */
export async function markMissingFromCognito(db: Database, sub: string, now: Date): Promise<DirectoryEntry | null> {
  const [row] = await db
    .update(memberDirectory)
    .set({ missingFromCognitoAt: now, syncedAt: now })
    .where(and(eq(memberDirectory.sub, sub), isNull(memberDirectory.missingFromCognitoAt)))
    .returning();
  if (row) return row;
  const [unchanged] = await db.select().from(memberDirectory).where(eq(memberDirectory.sub, sub));
  return unchanged ?? null;
}

export interface DirectoryRefresh {
  before: DirectoryEntry | null;
  /** Null when there was no row and Cognito has no such user. */
  after: DirectoryEntry | null;
  changedFields: string[];
  /** Cognito has no user of this sub. */
  missing: boolean;
}

/** The staff "refresh": the row read again from Cognito (AdminGetUser and AdminListGroupsForUser, by sub). */
export async function refreshDirectoryEntry(
  services: Pick<AppServices, "db" | "identity" | "clock">,
  sub: string,
): Promise<DirectoryRefresh> {
  const { db, identity, clock } = services;
  try {
    const user = await identity.getUser(sub);
    const groups = await identity.listGroupsForUser(sub);
    return { ...(await saveFromCognito(db, user, groups, clock.now())), missing: false };
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "userNotFound")) throw error;
    const [before] = await db.select().from(memberDirectory).where(eq(memberDirectory.sub, sub));
    const after = await markMissingFromCognito(db, sub, clock.now());
    const changedFields = before && !before.missingFromCognitoAt ? ["missingFromCognitoAt"] : [];
    return { before: before ?? null, after, changedFields, missing: true };
  }
}

// ---- the app's own writes -------------------------------------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The row a Cognito call names: calls name the user by sub (a uuid) or by e-mail. By e-mail only the present
 * row: an address deleted from Cognito may have signed up again under a new sub.
 */
function rowNamed(name: string): SQL | undefined {
  return UUID.test(name)
    ? eq(memberDirectory.sub, name)
    : and(eq(memberDirectory.emailKey, name.toLowerCase()), isNull(memberDirectory.missingFromCognitoAt));
}

/** The directory columns an AdminUpdateUserAttributes implies. Cognito unverifies a changed e-mail unless told. */
function columnsOfAttributes(attributes: UserAttributes): Partial<DirectoryEntry> {
  return {
    ...(attributes.email !== undefined
      ? { email: attributes.email, emailVerified: attributes.email_verified === "true" }
      : attributes.email_verified !== undefined
        ? { emailVerified: attributes.email_verified === "true" }
        : {}),
    ...(attributes.locale !== undefined ? { locale: attributes.locale } : {}),
    ...(attributes.family_name !== undefined ? { familyName: attributes.family_name } : {}),
    ...(attributes.given_name !== undefined ? { givenName: attributes.given_name } : {}),
  };
}

type RecordedMethods =
  | "signUp"
  | "confirmSignUp"
  | "updateAttributes"
  | "createUnmailedUser"
  | "inviteUser"
  | "setPermanentPassword"
  | "answerNewPasswordChallenge"
  | "deleteUser"
  | "disableUser"
  | "enableUser";

/**
 * The identity provider, keeping the directory current after its own successful writes, from what each write
 * implies: no extra Cognito call (tests count the calls, and Cognito's quotas are shared). The directory writes run
 * after the call, in order, off the member's path: never awaited, so a slow or failing database never fails or
 * slows the member's flow (a failure is logged; the reconcile job repairs the drift), and a write made inside a
 * transaction (the legacy migration's) never waits for a connection that transaction holds (PGlite has one).
 * Apply it inside withDomainErrors: its errors are still the adapter's, and createConfirmedUser's own calls
 * (`this.…`) reach the recording methods.
 */
export function recordingDirectoryWrites<T extends Pick<IdentityProvider, RecordedMethods>>(
  identity: T,
  db: Database,
  clock: Clock,
): T & { settleDirectoryWrites(): Promise<void> } {
  let queue: Promise<void> = Promise.resolve();
  const record = (write: string, run: (now: Date) => Promise<unknown>) => {
    const now = clock.now();
    queue = queue
      .then(() => run(now))
      .then(
        () => undefined,
        (error: unknown) => {
          logger.warn(
            { err: error, directoryWrite: write },
            "could not record a Cognito write in the member directory",
          );
        },
      );
  };
  const updateRow = (name: string, columns: Partial<DirectoryEntry>, now: Date) =>
    db
      .update(memberDirectory)
      .set({ ...columns, cognitoUpdatedAt: now, syncedAt: now })
      .where(rowNamed(name));
  const insertRow = (
    row: Omit<IdentityColumns, "username" | "signedUpAt" | "cognitoUpdatedAt" | "groups">,
    now: Date,
  ) =>
    db
      .insert(memberDirectory)
      .values({
        ...row,
        username: row.sub,
        signedUpAt: now,
        cognitoUpdatedAt: now,
        groups: [],
        syncedAt: now,
        seenInCognitoAt: now,
      })
      .onConflictDoNothing();
  /** A user made by AdminCreateUser: verified e-mail, no password of the member's own yet. */
  const insertCreatedUser = (sub: string, input: { email: string; attributes: UserAttributes }, now: Date) =>
    insertRow(
      {
        sub,
        email: input.email,
        emailVerified: true,
        cognitoStatus: "FORCE_CHANGE_PASSWORD",
        enabled: true,
        locale: input.attributes.locale ?? null,
        familyName: input.attributes.family_name ?? null,
        givenName: input.attributes.given_name ?? null,
      },
      now,
    );
  const markMissing = (name: string, now: Date) =>
    db
      .update(memberDirectory)
      .set({ missingFromCognitoAt: now, syncedAt: now })
      .where(and(rowNamed(name), isNull(memberDirectory.missingFromCognitoAt)));

  return {
    ...identity,
    /** Resolves once every directory write recorded so far is done: a command waits for it before it closes the database. */
    settleDirectoryWrites: () => queue,
    async signUp(input) {
      const result = await identity.signUp(input);
      record("signUp", (now) =>
        insertRow(
          {
            sub: result.sub,
            email: input.email,
            emailVerified: false,
            cognitoStatus: result.confirmed ? "CONFIRMED" : "UNCONFIRMED",
            enabled: true,
            locale: input.locale,
            familyName: null,
            givenName: null,
          },
          now,
        ),
      );
      return result;
    },
    async confirmSignUp(input) {
      await identity.confirmSignUp(input);
      record("confirmSignUp", (now) =>
        updateRow(input.email, { cognitoStatus: "CONFIRMED", emailVerified: true }, now),
      );
    },
    async updateAttributes(username, attributes) {
      await identity.updateAttributes(username, attributes);
      record("updateAttributes", (now) => updateRow(username, columnsOfAttributes(attributes), now));
    },
    async createUnmailedUser(input) {
      const sub = await identity.createUnmailedUser(input);
      record("createUnmailedUser", (now) => insertCreatedUser(sub, input, now));
      return sub;
    },
    async inviteUser(input) {
      const sub = await identity.inviteUser(input);
      record("inviteUser", (now) => insertCreatedUser(sub, input, now));
      return sub;
    },
    async setPermanentPassword(input) {
      await identity.setPermanentPassword(input);
      record("setPermanentPassword", (now) => updateRow(input.email, { cognitoStatus: "CONFIRMED" }, now));
    },
    async answerNewPasswordChallenge(input) {
      const tokens = await identity.answerNewPasswordChallenge(input);
      // The invited member chose a password: Cognito has made the user CONFIRMED.
      record("answerNewPasswordChallenge", (now) => updateRow(input.username, { cognitoStatus: "CONFIRMED" }, now));
      return tokens;
    },
    async deleteUser(username) {
      await identity.deleteUser(username);
      record("deleteUser", (now) => markMissing(username, now));
    },
    async disableUser(username) {
      await identity.disableUser(username);
      record("disableUser", (now) => updateRow(username, { enabled: false }, now));
    },
    async enableUser(username) {
      await identity.enableUser(username);
      record("enableUser", (now) => updateRow(username, { enabled: true }, now));
    },
  };
}
