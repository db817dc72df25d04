import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory, memberProfiles, memberSessions, memberSignOuts } from "~db/schema";

/**
 * Where a bearer token's sign-in stands, in one indexed query: "ended" when its session was ended (signed out,
 * deactivated, password changed) and not registered again, or when no session records it and the member was
 * signed out everywhere after the token was issued; "cancelled" when the member cancelled; "disabled" when staff
 * disabled the account (the directory says so: every token of a disabled member is refused at
 * once, a sibling's sign-in issued in the disabling second included); "live" when a session
 * holds it; "unregistered" for a sign-in no session records (a sibling service's, before it registers the
 * device). A token without `origin_jti` can only be "unregistered", "ended" or "cancelled".
 */
export async function tokenStanding(
  db: Database,
  input: { sub: string; originJti: string | null; issuedAt: Date },
): Promise<"live" | "ended" | "unregistered" | "cancelled" | "disabled"> {
  // An aggregate without GROUP BY: exactly one row, whether or not any session matches.
  const [row] = await db
    .select({
      live: sql<boolean | null>`bool_or(${memberSessions.revokedAt} is null)`,
      cancelled: sql<
        boolean | null
      >`(select ${memberProfiles.cancelledAt} is not null from ${memberProfiles} where ${memberProfiles.sub} = ${input.sub})`,
      disabled: sql<
        boolean | null
      >`(select not ${memberDirectory.enabled} from ${memberDirectory} where ${memberDirectory.sub} = ${input.sub})`,
      signedOutSince: sql<boolean>`exists (select 1 from ${memberSignOuts} where ${memberSignOuts.sub} = ${input.sub} and ${memberSignOuts.signedOutAt} > ${input.issuedAt.toISOString()})`,
    })
    .from(memberSessions)
    .where(
      and(
        eq(memberSessions.sub, input.sub),
        input.originJti ? eq(memberSessions.originJti, input.originJti) : sql`false`,
      ),
    );
  if (row?.cancelled) return "cancelled";
  if (row?.disabled) return "disabled";
  if (row?.live === true) return "live";
  if (row?.live === false || row?.signedOutSince) return "ended";
  return "unregistered";
}

/**
 * Notes that every sign-in of the member was just signed out at Cognito (a password change, a staff action), so the
 * API refuses access tokens issued before now by sign-ins no session records (see tokenStanding).
 */
export async function recordSignOutEverywhere(
  db: Database,
  sub: string,
  now: Date,
  options: {
    /**
     * Tokens say when they were issued in whole seconds. By default a token of this very second stays good: it may
     * be a new sign-in's (the member signing in again after changing their password). Staff cutting a member off
     * refuse this second's tokens too; a sign-in in what is left of the second has to refresh once a second later.
     */
    includeThisSecond?: boolean;
  } = {},
): Promise<void> {
  const seconds = now.getTime() / 1000;
  const signedOutAt = new Date((options.includeThisSecond ? Math.floor(seconds) + 1 : Math.floor(seconds)) * 1000);
  await db
    .insert(memberSignOuts)
    .values({ sub, signedOutAt })
    .onConflictDoUpdate({ target: memberSignOuts.sub, set: { signedOutAt } });
}
