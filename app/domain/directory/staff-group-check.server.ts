import { and, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory, staffGroupChecks } from "~db/schema";
import type { IdentityProvider, IdentityUser } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import { countJobRun } from "~/integrations/metrics.server";
import type { Clock } from "~/services.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { keepStaffAuthenticatorsOn } from "../security/factor-reconcile.server";
import { saveManyFromCognito } from "./member-directory.server";

/**
 * Staff rights are believed for at most this long after the staff group's members were last read from Cognito:
 * a member removed from the group (in the AWS console) loses the staff pages and the admin API within a minute,
 * on every instance, though their tokens still name the group (docs/security.md, "Staff rights on the admin API").
 */
export const STAFF_RIGHTS_MAX_AGE_MS = 60 * 1000;

/**
 * Where a signed-in member whose access token names the staff group stands as staff right now. Two readings of
 * Cognito's group are at hand, and the newer one counts: the member directory's groups, as the check job last read
 * them, or the token's own, as Cognito wrote them when it issued the token (`tokenIssuedAt`): a token issued after
 * the last reading is the fresher word (a member just added to the group), and a member removed after it is caught
 * by the next reading. "unverified" when the directory's reading is older than STAFF_RIGHTS_MAX_AGE_MS (the job is
 * failing or stopped): refused like "not-staff", with a "try again" (fail closed). One indexed query, no Cognito
 * call: a page view may run it.
 */
export type StaffStanding = "staff" | "not-staff" | "unverified";

export async function staffStandingNow(
  db: Database,
  input: { sub: string; staffGroup: string; tokenIssuedAt: Date; now: Date },
): Promise<StaffStanding> {
  const [row] = await db
    .select({
      checkedAt: staffGroupChecks.checkedAt,
      inGroup: sql<boolean>`coalesce((select ${input.staffGroup} = any(${memberDirectory.groups}) from ${memberDirectory} where ${memberDirectory.sub} = ${input.sub}), false)`,
    })
    .from(staffGroupChecks)
    .where(eq(staffGroupChecks.groupName, input.staffGroup));
  if (!row?.checkedAt || input.now.getTime() - row.checkedAt.getTime() > STAFF_RIGHTS_MAX_AGE_MS) {
    return "unverified";
  }
  // A token's issue time is in whole seconds: issued in the second a reading started, it may be the later of the two.
  // Counting it as the newer word grants at most that second more after a removal, well within the minute.
  const tokenMayBeNewer = input.tokenIssuedAt.getTime() + TOKEN_TIME_RESOLUTION_MS > row.checkedAt.getTime();
  return row.inGroup || tokenMayBeNewer ? "staff" : "not-staff";
}

/** JWT times (`iat`) are whole seconds. */
const TOKEN_TIME_RESOLUTION_MS = 1000;

export interface StaffGroupCheckDependencies {
  db: Database;
  identity: Pick<IdentityProvider, "listUsersInGroup" | "getUser" | "setSoftwareTokenPreferenceOf">;
  clock: Clock;
}

/**
 * Takes this interval's check for this instance unless another instance took one within the last `intervalMs`
 * (most of it): a conditional write instead of a lock held over the Cognito calls. A check that dies leaves its
 * claim to expire, and the next instance to ask takes over.
 */
async function claimCheck(db: Database, staffGroup: string, now: Date, intervalMs: number): Promise<boolean> {
  const claimedBefore = new Date(now.getTime() - intervalMs * 0.8);
  const claimed = await db
    .insert(staffGroupChecks)
    .values({ groupName: staffGroup, claimedAt: now })
    .onConflictDoUpdate({
      target: staffGroupChecks.groupName,
      set: { claimedAt: now },
      setWhere: lt(staffGroupChecks.claimedAt, claimedBefore),
    })
    .returning({ groupName: staffGroupChecks.groupName });
  return claimed.length > 0;
}

async function listGroupMembers(
  identity: StaffGroupCheckDependencies["identity"],
  staffGroup: string,
): Promise<IdentityUser[]> {
  const users: IdentityUser[] = [];
  let nextToken: string | undefined;
  do {
    const page = await identity.listUsersInGroup({ groupName: staffGroup, nextToken });
    users.push(...page.users);
    nextToken = page.nextToken;
  } while (nextToken);
  return users;
}

/**
 * Reads the staff group's members from Cognito and writes them into the directory's `groups`: the group added
 * where it is missing, removed where Cognito no longer lists the member, and a member the directory lacks added
 * with their row (else a new staff member would wait for the next reconcile). Then records the check's start as
 * the time the membership is known from, and holds the staff's authenticators at Cognito to our record
 * (keepStaffAuthenticatorsOn). "busy": another instance has this interval's check.
 */
export async function checkStaffGroup(
  deps: StaffGroupCheckDependencies,
  options: { staffGroup: string; intervalMs: number },
): Promise<"checked" | "busy"> {
  const { db, clock } = deps;
  const { staffGroup } = options;
  const startedAt = clock.now();
  if (!(await claimCheck(db, staffGroup, startedAt, options.intervalMs))) return "busy";
  const members = await listGroupMembers(deps.identity, staffGroup);
  const subs = members.map((user) => user.sub);
  await db.transaction(async (tx) => {
    const inGroup = sql`${staffGroup} = any(${memberDirectory.groups})`;
    await tx
      .update(memberDirectory)
      .set({ groups: sql`array_remove(${memberDirectory.groups}, ${staffGroup})` })
      .where(subs.length > 0 ? and(inGroup, notInArray(memberDirectory.sub, subs)) : inGroup);
    if (subs.length > 0) {
      const added = await tx
        .update(memberDirectory)
        .set({ groups: sql`array_append(${memberDirectory.groups}, ${staffGroup})` })
        .where(and(inArray(memberDirectory.sub, subs), sql`not (${inGroup})`))
        .returning({ sub: memberDirectory.sub });
      const present = await tx
        .select({ sub: memberDirectory.sub })
        .from(memberDirectory)
        .where(inArray(memberDirectory.sub, subs));
      const known = new Set(present.map((row) => row.sub));
      const missing = members.filter((user) => !known.has(user.sub));
      await saveManyFromCognito(
        tx,
        missing.map((user) => ({ user, groups: [staffGroup] })),
        startedAt,
      );
      if (added.length > 0 || missing.length > 0) {
        logger.info({ staffGroup, added: added.length + missing.length }, "staff group members added to the directory");
      }
    }
    // A slower check that started earlier never moves the time back.
    await tx
      .update(staffGroupChecks)
      .set({ checkedAt: startedAt })
      .where(
        and(
          eq(staffGroupChecks.groupName, staffGroup),
          or(isNull(staffGroupChecks.checkedAt), lt(staffGroupChecks.checkedAt, startedAt)),
        ),
      );
  });
  await keepStaffAuthenticatorsOn(
    deps,
    members.map((user) => ({ sub: user.sub, email: user.email, locale: user.attributes.locale ?? null })),
  );
  return "checked";
}

/** Runs checkStaffGroup on every instance every `intervalMs` (first at once); one of them does each check. */
export function scheduleStaffGroupCheck(
  deps: StaffGroupCheckDependencies,
  options: { staffGroup: string; intervalMs: number },
): () => void {
  return scheduleRepeating(
    async () => {
      try {
        const outcome = await checkStaffGroup(deps, options);
        countJobRun("staff-group-check", outcome === "checked" ? "ran" : "busy", true);
      } catch (error) {
        countJobRun("staff-group-check", "failed", false);
        logger.warn({ err: error }, "the staff group check failed; staff rights lapse a minute after the last one");
      }
    },
    { firstRunDelayMs: 0, intervalMs: options.intervalMs },
  );
}
