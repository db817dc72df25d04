import { sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { legacyCredentials, memberDirectory, memberProfiles } from "~db/schema";

/** A member as the admin-area tests seed one: straight into the directory, with the tables its triggers copy from. */
export interface DirectoryMemberSeed {
  sub: string;
  email: string;
  familyName?: string | null;
  givenName?: string | null;
  locale?: string | null;
  cognitoStatus?: string;
  enabled?: boolean;
  /** Microseconds since the epoch: PostgreSQL keeps them, a JavaScript Date would not. */
  signedUpMicros: bigint;
  /** A profile is stored unless this is false (a member who never finished sign-up has none). */
  withProfile?: boolean;
  referrerService?: string | null;
  cancelledAt?: Date | null;
  legacyMigratedAt?: Date | null;
}

export const microsOf = (date: Date) => BigInt(date.getTime()) * 1000n;

/**
 * Inserts the members in three statements: profiles and legacy accounts first, so the directory's insert
 * trigger copies referrer, cancellation and migration from them as it does in the app.
 */
export async function insertDirectoryMembers(db: Database, members: DirectoryMemberSeed[]) {
  const profiles = members.filter((member) => member.withProfile !== false);
  if (profiles.length > 0) {
    await db.insert(memberProfiles).values(
      profiles.map((member) => ({
        sub: member.sub,
        familyName: member.familyName ?? null,
        givenName: member.givenName ?? null,
        preferredLanguage: member.locale ?? "ja",
        referrerService: member.referrerService ?? null,
        cancelledAt: member.cancelledAt ?? null,
        cognitoDeletedAt: member.cancelledAt ?? null,
      })),
    );
  }
  const migrated = members.filter((member) => member.legacyMigratedAt);
  if (migrated.length > 0) {
    await db.insert(legacyCredentials).values(
      migrated.map((member) => ({
        email: member.email.toLowerCase(),
        passwordHash: "$2b$10$not-a-real-hash",
        profile: {},
        migratedAt: member.legacyMigratedAt ?? null,
        migratedSub: member.sub,
      })),
    );
  }
  await db.insert(memberDirectory).values(
    members.map((member) => {
      const signedUpAt = sql`(timestamptz 'epoch' + ${member.signedUpMicros.toString()}::bigint * interval '1 microsecond')`;
      return {
        sub: member.sub,
        username: member.sub,
        email: member.email,
        emailVerified: member.cognitoStatus !== "UNCONFIRMED",
        cognitoStatus: member.cognitoStatus ?? "CONFIRMED",
        enabled: member.enabled ?? true,
        signedUpAt,
        cognitoUpdatedAt: signedUpAt,
        locale: member.locale ?? null,
        familyName: member.familyName ?? null,
        givenName: member.givenName ?? null,
      };
    }),
  );
}
