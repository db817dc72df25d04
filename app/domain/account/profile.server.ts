import { and, eq, ne } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberProfiles, memberSessions } from "~db/schema";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { recordAccountEvent } from "../events/account-events.server";
import { twoStepStatusOf } from "../security/two-step-verification.server";
import type { Profile } from "../forms/profile-schemas";

type ProfileDeps = { db: Database; identity: IdentityProvider };

/** What /my/profile/ and its edit form show: the stored profile fields, or null when none were ever saved. */
export type StoredProfile = {
  familyName: string | null;
  givenName: string | null;
  birthYear: number | null;
  country: string | null;
  prefecture: string | null;
  occupation: string | null;
  organization: string | null;
  preferredLanguage: string;
};

/** The columns of a StoredProfile, for every query that reads one (the session check reads it too). */
export const storedProfileColumns = {
  familyName: memberProfiles.familyName,
  givenName: memberProfiles.givenName,
  birthYear: memberProfiles.birthYear,
  country: memberProfiles.country,
  prefecture: memberProfiles.prefecture,
  occupation: memberProfiles.occupation,
  organization: memberProfiles.organization,
  preferredLanguage: memberProfiles.preferredLanguage,
};

export async function findProfile(db: Database, sub: string): Promise<StoredProfile | null> {
  const [row] = await db.select(storedProfileColumns).from(memberProfiles).where(eq(memberProfiles.sub, sub)).limit(1);
  return row ?? null;
}

/** The profile fields as written: what a save changed, for the siblings (`member.updated`) and the page's toast. */
export type ProfileChanges = Partial<StoredProfile>;

/**
 * The one way profile fields are written, for sign-up's account-info step and the profile edit page: Cognito's
 * attributes (names, locale) first, so if Cognito fails nothing is stored and the member can simply submit
 * again; then the database row. An existing row keeps what the caller does not pass (the referrer always, the
 * questionnaire unless given). In the row's transaction, the siblings hear what changed: `member.updated` with
 * the fields whose value differs from the stored one (all of them when the row is new), nothing when none does,
 * and `member.newsletter_changed` when the newsletter choice does. Answers the changed fields.
 */
export async function writeProfile(
  deps: ProfileDeps,
  input: {
    sub: string;
    profile: Profile;
    questionnaire?: Record<string, unknown>;
    /** Recorded only when the row is created. */
    referrerService?: string | null;
    /** The newsletter choice (profile edit); left as it is when not given. */
    receivesNewsletter?: boolean;
  },
): Promise<ProfileChanges> {
  const { profile } = input;
  const now = new Date();
  const written: StoredProfile = {
    familyName: profile.familyName,
    givenName: profile.givenName,
    birthYear: profile.birthYear,
    country: profile.country,
    prefecture: profile.prefecture,
    occupation: profile.occupation,
    organization: profile.organization,
    preferredLanguage: profile.preferredLanguage,
  };
  const fields = {
    ...written,
    ...(input.questionnaire ? { questionnaire: input.questionnaire } : {}),
    ...(input.receivesNewsletter === undefined ? {} : { receivesNewsletter: input.receivesNewsletter }),
    updatedAt: now,
  };
  // The sub names the Cognito user for good; the e-mail may have changed since the session began.
  await deps.identity.updateAttributes(input.sub, {
    family_name: profile.familyName,
    given_name: profile.givenName,
    locale: profile.preferredLanguage,
  });
  return deps.db.transaction(async (tx) => {
    const [stored] = await tx
      .select({ ...storedProfileColumns, receivesNewsletter: memberProfiles.receivesNewsletter })
      .from(memberProfiles)
      .where(eq(memberProfiles.sub, input.sub))
      .for("update");
    await tx
      .insert(memberProfiles)
      .values({ sub: input.sub, referrerService: input.referrerService ?? null, ...fields })
      .onConflictDoUpdate({ target: memberProfiles.sub, set: fields });
    const changed = Object.fromEntries(
      Object.entries(written).filter(([field, value]) => !stored || stored[field as keyof StoredProfile] !== value),
    ) as ProfileChanges;
    if (Object.keys(changed).length > 0) {
      await recordAccountEvent(tx, { type: "member.updated", sub: input.sub, occurredAt: now, data: { changed } });
    }
    // A member without a row receives the newsletter (the column's default).
    const receivedNewsletter = stored?.receivesNewsletter ?? true;
    if (input.receivesNewsletter !== undefined && input.receivesNewsletter !== receivedNewsletter) {
      await recordAccountEvent(tx, {
        type: "member.newsletter_changed",
        sub: input.sub,
        occurredAt: now,
        data: { newsletter: input.receivesNewsletter },
      });
    }
    return changed;
  });
}

/** The profile fields that are the member's membership information; the preferred language is a setting. */
const MEMBERSHIP_INFO_FIELDS = [
  "familyName",
  "givenName",
  "birthYear",
  "country",
  "prefecture",
  "occupation",
  "organization",
] as const satisfies readonly (keyof Profile & keyof StoredProfile)[];

/**
 * What a save of the profile form changed: `membershipInfo` when any of the member's details differ from what was
 * stored (the spec's "profile changed"), `settings` when only the preferred language or the newsletter choice did,
 * or nothing at all ("Changes are saved").
 */
export type ProfileUpdate = "membershipInfo" | "settings";

/**
 * /my/profile/edit/: the member's own profile fields and newsletter choice; the referrer and the sign-up
 * questionnaire stay as they were.
 */
export async function updateProfile(
  deps: ProfileDeps,
  input: { sub: string; profile: Profile; receivesNewsletter?: boolean },
): Promise<ProfileUpdate> {
  const changed = await writeProfile(deps, input);
  return MEMBERSHIP_INFO_FIELDS.some((field) => field in changed) ? "membershipInfo" : "settings";
}

/**
 * The UI language the member chose in their profile (its preferred language), for the session just started; null
 * when they never saved a profile.
 */
export async function findPreferredLanguageOfSession(db: Database, sessionId: string): Promise<string | null> {
  const [row] = await db
    .select({ preferredLanguage: memberProfiles.preferredLanguage })
    .from(memberSessions)
    .innerJoin(memberProfiles, eq(memberProfiles.sub, memberSessions.sub))
    .where(eq(memberSessions.id, sessionId))
    .limit(1);
  return row?.preferredLanguage ?? null;
}

export interface MemberRecord {
  sub: string;
  email: string;
  emailVerified: boolean;
  profile: StoredProfile | null;
  /** Whether the member signs in with 2-step verification (our flag, kept as they turn it on and off). */
  twoStepVerification: boolean;
}

/**
 * POST /api/refresh-user: the member as Cognito has them now, with the stored profile. The e-mail the session
 * rows keep for the header is brought up to date, in case it was changed somewhere other than here.
 */
export async function refreshMemberRecord(
  deps: { db: Database; identity: Pick<IdentityProvider, "getUser"> },
  sub: string,
): Promise<MemberRecord> {
  const user = await deps.identity.getUser(sub);
  await deps.db
    .update(memberSessions)
    .set({ email: user.email })
    .where(and(eq(memberSessions.sub, sub), ne(memberSessions.email, user.email)));
  const [profile, twoStep] = await Promise.all([findProfile(deps.db, sub), twoStepStatusOf(deps.db, sub)]);
  return { sub, email: user.email, emailVerified: user.emailVerified, profile, twoStepVerification: twoStep.enabled };
}
