import bcrypt from "bcryptjs";
import { parse } from "csv-parse/sync";
import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client.server";
import { type LegacyProfile, legacyCredentials, memberProfiles } from "../../db/schema";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";

/** What one CSV row must look like; unknown columns are ignored (SECURITY.md item 13). */
const LegacyRowSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password_hash: z.string().regex(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/, "not a bcrypt hash"),
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
  const records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  const rows: LegacyRow[] = [];
  const errors: RowError[] = [];
  records.forEach((record, index) => {
    const parsed = LegacyRowSchema.safeParse(emptyToUndefined(record));
    const line = index + 2; // the header is line 1
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push({ line, field: issue.path.join("."), message: issue.message });
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

/** Safe to run again: new rows are added, rows not yet migrated are updated, migrated ones are left alone. */
export async function importLegacyRows(db: Database, rows: LegacyRow[]): Promise<number> {
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

/**
 * The lazy migration (DESIGN.md "Identity"): Cognito does not know the address, but the legacy table does and
 * the password matches, so the account moves to Cognito with that same password and its profile comes along.
 * Returns false when there is nothing to migrate; the caller then answers like any failed sign-in.
 */
export async function migrateLegacyAccount(
  deps: { db: Database; identity: IdentityProvider },
  input: { email: string; password: string },
): Promise<boolean> {
  const email = input.email.trim().toLowerCase();
  const [legacy] = await deps.db
    .select()
    .from(legacyCredentials)
    .where(and(eq(legacyCredentials.email, email), isNull(legacyCredentials.migratedAt)));
  if (!legacy || !(await bcrypt.compare(input.password, legacy.passwordHash))) return false;

  const { profile } = legacy;
  await deps.identity.createConfirmedUser({
    email,
    password: input.password,
    attributes: {
      family_name: profile.familyName,
      given_name: profile.givenName,
      locale: profile.preferredLanguage ?? "ja",
    },
  });
  const { sub } = await deps.identity.getUser(email);
  await deps.db
    .insert(memberProfiles)
    .values({ sub, ...profile, preferredLanguage: profile.preferredLanguage ?? "ja", referrerService: "legacy" })
    .onConflictDoNothing();
  await deps.db
    .update(legacyCredentials)
    .set({ migratedAt: sql`now()`, migratedSub: sub })
    .where(eq(legacyCredentials.email, email));
  return true;
}
