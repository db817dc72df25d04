import { parse } from "csv-parse/sync";
import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { type LegacyProfile, legacyCredentials, memberProfiles } from "~db/schema";
import { DomainError, type DomainErrorCode } from "../domain-error.server";
import { recordAccountEvent } from "../events/account-events.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import {
  MAX_LEGACY_BCRYPT_COST,
  bcryptCostOf,
  checkLegacyPassword,
  meetsPoolPasswordPolicy,
} from "./legacy-password.server";
import { UNCONFIRMED_STATUS, deleteUserIfPresent } from "./sign-up.server";
import type { Clock } from "~/services.server";
import { claimPendingCognitoChange, notePendingCognitoChange } from "./pending-cognito-changes.server";

/** What one CSV row must look like; unknown columns are ignored, so no column can set anything else. */
const LegacyRowSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password_hash: z
    .string()
    .regex(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/, "not a bcrypt hash")
    .refine((hash) => bcryptCostOf(hash) <= MAX_LEGACY_BCRYPT_COST, `bcrypt cost above ${MAX_LEGACY_BCRYPT_COST}`),
  family_name: z.string().trim().max(50).optional(),
  given_name: z.string().trim().max(50).optional(),
  birth_year: z.coerce.number().int().min(1900).max(2100).optional(),
  country: z.string().trim().max(50).optional(),
  prefecture: z.string().trim().max(50).optional(),
  occupation: z.string().trim().max(50).optional(),
  organization: z.string().trim().max(100).optional(),
  preferred_language: z.enum(["ja", "en"]).optional(),
});

export interface LegacyRow {
  email: string;
  passwordHash: string;
  profile: LegacyProfile;
}

export interface RowError {
  line: number;
  field: string;
  message: string;
}

const emptyToUndefined = (record: Record<string, string>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, value === "" ? undefined : value]));

/** Parses the staff's export; every bad row is reported by line and field, and the good rows still import. */
export function parseLegacyCsv(text: string): { rows: LegacyRow[]; errors: RowError[] } {
  const records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<
    string,
    string
  >[];
  const rows: LegacyRow[] = [];
  const errors: RowError[] = [];
  records.forEach((record, index) => {
    const parsed = LegacyRowSchema.safeParse(emptyToUndefined(record));
    const line = index + 2; // the header is line 1
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        errors.push({ line, field: issue.path.join("."), message: issue.message });
      return;
    }
    const row = parsed.data;
    rows.push({
      email: row.email,
      passwordHash: row.password_hash,
      profile: {
        familyName: row.family_name,
        givenName: row.given_name,
        birthYear: row.birth_year,
        country: row.country,
        prefecture: row.prefecture,
        occupation: row.occupation,
        organization: row.organization,
        preferredLanguage: row.preferred_language,
      },
    });
  });
  return { rows, errors };
}

/**
 * Safe to run again: new rows are added, rows not yet migrated are updated, migrated ones are left alone. Rows
 * come from parseLegacyCsv, which refuses hashes above MAX_LEGACY_BCRYPT_COST; any other caller is held to it too.
 */
export async function importLegacyRows(db: Database, rows: LegacyRow[]): Promise<number> {
  const tooCostly = rows.find((row) => !(bcryptCostOf(row.passwordHash) <= MAX_LEGACY_BCRYPT_COST));
  if (tooCostly)
    throw new Error(`A legacy password hash has a bcrypt cost above ${MAX_LEGACY_BCRYPT_COST}; nothing imported`);
  for (const row of rows) {
    await db
      .insert(legacyCredentials)
      .values(row)
      .onConflictDoUpdate({
        target: legacyCredentials.email,
        set: { passwordHash: row.passwordHash, profile: row.profile, importedAt: new Date() },
        setWhere: isNull(legacyCredentials.migratedAt),
      });
  }
  return rows.length;
}

export type LegacyMigrationIdentity = Pick<
  IdentityProvider,
  "findUser" | "deleteUser" | "createUnmailedUser" | "setPermanentPassword"
>;

/** Cognito refusing the password itself: the pool's policy is stricter than the app's rules. */
const REFUSED_PASSWORD_CODES: ReadonlySet<DomainErrorCode> = new Set(["invalidPassword", "invalidInput"]);

/**
 * Makes room for the legacy account: true when Cognito has no user for the address, or had one that nobody can
 * own yet and that is now deleted: a sign-up never confirmed (someone may have started one for a legacy
 * member's address, with their own password), or this migration's own user from an attempt that stopped half-way
 * and could not be undone (`startedSub`). False for a real account: the address signed up again after 2021,
 * and only its own password counts.
 */
async function clearWayForMigration(identity: LegacyMigrationIdentity, email: string, startedSub: string | null) {
  const user = await identity.findUser(email);
  if (!user) return true;
  const ownedByNobody = user.status === UNCONFIRMED_STATUS || (user.sub === startedSub && !user.confirmed);
  if (!ownedByNobody) return false;
  await deleteUserIfPresent(identity, email);
  return true;
}

type LegacyCredentials = typeof legacyCredentials.$inferSelect;

/** Our record of a migration Cognito holds: the profile, the legacy row marked moved, `member.created`. */
async function recordMigration(tx: Database, legacy: LegacyCredentials, sub: string, now: Date): Promise<void> {
  const { email, profile } = legacy;
  await tx
    .insert(memberProfiles)
    .values({ sub, ...profile, preferredLanguage: profile.preferredLanguage ?? "ja", referrerService: "legacy" })
    .onConflictDoNothing();
  await tx
    .update(legacyCredentials)
    .set({ migratedAt: now, migratedSub: sub })
    .where(and(eq(legacyCredentials.email, email), isNull(legacyCredentials.migratedAt)));
  await recordAccountEvent(tx, {
    type: "member.created",
    sub,
    occurredAt: now,
    data: { email, via: "legacy-migration" },
  });
}

/** One migration per address at a time, the repair's included. */
function lockLegacyAddress(tx: Database, email: string) {
  return tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`legacy-migration:${email}`}, 0))`);
}

/**
 * Creates the Cognito user, sets the password and copies the profile, inside the caller's transaction (which
 * holds the address's lock). Failures come back as `failure`, not thrown, so that the transaction still commits
 * the sub recorded right after AdminCreateUser.
 */
async function moveToCognito(
  identity: LegacyMigrationIdentity,
  tx: Database,
  legacy: LegacyCredentials,
  password: string,
): Promise<{ migrated: boolean; failure?: unknown }> {
  const { email, profile } = legacy;
  if (!(await clearWayForMigration(identity, email, legacy.migratedSub))) return { migrated: false };
  const attributes = {
    family_name: profile.familyName,
    given_name: profile.givenName,
    locale: profile.preferredLanguage ?? "ja",
  };
  const sub = await identity.createUnmailedUser({ email, attributes });
  const pending = and(eq(legacyCredentials.email, email), isNull(legacyCredentials.migratedAt));
  try {
    await tx.update(legacyCredentials).set({ migratedSub: sub }).where(pending);
    await identity.setPermanentPassword({ email, password });
    await recordMigration(tx, legacy, sub, new Date());
    return { migrated: true };
  } catch (error) {
    await deleteUserIfPresent(identity, email).catch((undoError: unknown) => {
      logger.error({ err: undoError, migratedSub: sub }, "legacy migration stopped half-way; the next sign-in retries");
    });
    // setPermanentPassword is the transaction's one identity call, so these codes are Cognito refusing the password.
    const refused = error instanceof DomainError && REFUSED_PASSWORD_CODES.has(error.code);
    return {
      migrated: false,
      failure: refused ? new DomainError("legacyPasswordBelowPolicy", { cause: error }) : error,
    };
  }
}

/**
 * The lazy migration: Cognito refused the sign-in (unknown address, wrong password or an unconfirmed account),
 * but the legacy table has the address and the password matches, so the account moves to Cognito with that same
 * password and its profile comes along. Returns false when there is nothing to migrate (the caller then answers
 * like any failed sign-in), true when Cognito has the account now (the caller signs in again; an account moved
 * long ago whose password has changed since fails there). One bcrypt compare runs either way
 * (legacy-password.server.ts).
 *
 * A password Cognito would refuse stops it before any user is created. If a step after AdminCreateUser fails,
 * the created user is deleted again; if even that fails, the sub recorded on the legacy row lets the next attempt
 * delete it. Either way the member can simply try again. One migration per address runs at a time (a
 * double-clicked sign-in sends two): the second waits for the first and then finds the account moved.
 */
export async function migrateLegacyAccount(
  deps: { db: Database; identity: LegacyMigrationIdentity; clock: Clock },
  input: { email: string; password: string },
): Promise<boolean> {
  const email = input.email.trim().toLowerCase();
  const [legacy] = await deps.db.select().from(legacyCredentials).where(eq(legacyCredentials.email, email));
  if (!(await checkLegacyPassword(input.password, legacy?.passwordHash ?? null)) || !legacy) return false;
  // Moved already, maybe by the same member's other sign-in a moment ago: Cognito has the account now.
  if (legacy.migratedAt) return true;
  if (!meetsPoolPasswordPolicy(input.password)) throw new DomainError("legacyPasswordBelowPolicy");

  // Committed before Cognito is asked, and taken away by the transaction below: that transaction holds the Cognito
  // calls, so a note left behind means it never committed, and the repair asks Cognito whether the user was made.
  const pendingId = await notePendingCognitoChange(deps.db, {
    sub: null,
    email,
    kind: "legacy-migration",
    now: deps.clock.now(),
  });
  const outcome = await deps.db.transaction(async (tx) => {
    await lockLegacyAddress(tx, email);
    const [current] = await tx.select().from(legacyCredentials).where(eq(legacyCredentials.email, email));
    // Gone: the repair already settled this attempt (it outlived the repair's settle time); nothing more is done.
    if (!(await claimPendingCognitoChange(tx, pendingId))) return { migrated: Boolean(current?.migratedAt) };
    if (!current || current.passwordHash !== legacy.passwordHash) return { migrated: false };
    if (current.migratedAt) return { migrated: true };
    return moveToCognito(deps.identity, tx, current, input.password);
  });
  if (outcome.failure) throw outcome.failure;
  return outcome.migrated;
}

/**
 * How much earlier than our note Cognito's clock may date the user the migration made. A user older than that was
 * there before the attempt (an account signed up again after 2021, which the migration leaves alone).
 */
export const LEGACY_USER_CLOCK_SKEW_MS = 60_000;

/**
 * For the repair of a migration whose transaction never committed (pending-cognito-changes.server.ts): Cognito has a
 * confirmed user for the address made after the attempt began (AdminCreateUser and the permanent password went
 * through) while the legacy row is not marked moved, so the migration happened and is recorded now, `member.created`
 * with it. A user the attempt made that still waits for its password (cut off between AdminCreateUser and the
 * password) is deleted, as the migration's own undo would have: it would keep the address from migrating. Anything
 * else (no user, an older account) is no migration: nothing is recorded, and the next sign-in tries again. Runs the
 * claim itself, under the address's lock, and answers whether it recorded the migration.
 */
export async function repairLegacyMigration(
  deps: { db: Database; identity: Pick<LegacyMigrationIdentity, "findUser" | "deleteUser"> },
  change: { id: string; email: string; createdAt: Date },
  now: Date,
): Promise<boolean> {
  const user = await deps.identity.findUser(change.email);
  return deps.db.transaction(async (tx) => {
    await lockLegacyAddress(tx, change.email);
    if (!(await claimPendingCognitoChange(tx, change.id))) return false;
    const madeByAttempt = user && user.createdAt.getTime() >= change.createdAt.getTime() - LEGACY_USER_CLOCK_SKEW_MS;
    if (!madeByAttempt) return false;
    if (!user.confirmed) {
      // A failure rolls the claim back: the note stays for the next run.
      await deleteUserIfPresent(deps.identity, change.email);
      return false;
    }
    const [legacy] = await tx.select().from(legacyCredentials).where(eq(legacyCredentials.email, change.email));
    if (!legacy || legacy.migratedAt) return false;
    await recordMigration(tx, legacy, user.sub, now);
    return true;
  });
}
