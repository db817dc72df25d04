import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { type DirectoryDrift, directoryReconcileRuns, memberDirectory } from "~db/schema";
import type { IdentityProvider, IdentityUserPage } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import { countJobRun } from "~/integrations/metrics.server";
import type { Clock } from "~/services.server";
import { type DirectorySave, saveManyFromCognito } from "./member-directory.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { claimScheduledTurn } from "../jobs/scheduled-turn.server";

/** ListUsers' largest page. */
export const RECONCILE_PAGE_SIZE = 60;
/**
 * A running run whose heartbeat (written after every page) is older than this was abandoned: its process died or
 * lost the database. Another instance then takes it over from its stored page token. Far above the time one page
 * takes at the slowest allowed pace, so a live run is never taken from under its worker.
 */
export const RECONCILE_STALE_AFTER_MS = 5 * 60 * 1000;
/** The first scheduled run waits this long after start-up (a dev server's staff list fills soon after it starts). */
export const RECONCILE_FIRST_RUN_DELAY_MS = 30 * 1000;
/** Any constant works; it only has to be the same in every instance (and differ from the purge's and migration's). */
export const RECONCILE_LOCK_KEY = 727_310_003;
/** How many drifted users of each kind the run report names. */
export const DRIFT_EXAMPLES_PER_KIND = 5;

export type DirectoryReconcileRun = typeof directoryReconcileRuns.$inferSelect;

export interface ReconcileDependencies {
  db: Database;
  identity: Pick<IdentityProvider, "listUsers" | "listGroups" | "listUsersInGroup">;
  clock: Clock;
}

export interface ReconcileOptions {
  /** Cognito requests a second, every request of the run counted (ListUsers, ListGroups, ListUsersInGroup). */
  requestsPerSecond: number;
  /** Stop (as a shutting-down server does) after this many pages of this call, leaving the run to be resumed. */
  maxPages?: number;
  /** Stops the walk after the page in hand; the run is left to be resumed. */
  signal?: AbortSignal;
  staleAfterMs?: number;
}

export type ReconcileOutcome =
  /** Another instance is working a run (its heartbeat is fresh), or holds the claim at this moment. */
  | { kind: "busy" }
  /** Stopped before the last page (maxPages or the signal): the run stays "running" and released for resumption. */
  | { kind: "paused"; run: DirectoryReconcileRun }
  /** Another instance took the run over (this one looked dead to it); this one stopped without writing more. */
  | { kind: "lost" }
  | { kind: "finished"; run: DirectoryReconcileRun };

/**
 * Spaces requests so Cognito receives at most `requestsPerSecond`: each request starts at least 1/rate seconds after
 * the previous one ended, so even a request delayed on the way cannot arrive within 1/rate of the one before it.
 */
export function createRequestPacer(
  requestsPerSecond: number,
  timer: { now(): number; sleep(ms: number): Promise<void> } = {
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  },
) {
  const intervalMs = 1000 / requestsPerSecond;
  let nextStart = -Infinity;
  return async function paced<T>(request: () => Promise<T>): Promise<T> {
    const wait = nextStart - timer.now();
    if (wait > 0) await timer.sleep(wait);
    try {
      return await request();
    } finally {
      nextStart = timer.now() + intervalMs;
    }
  };
}

type Paced = ReturnType<typeof createRequestPacer>;

/** Thrown inside a page's transaction when the run is no longer this worker's: the page's writes roll back. */
class RunTakenOver extends Error {}

function withExamples(drift: DirectoryDrift, found: DirectoryDrift["examples"]): DirectoryDrift["examples"] {
  const examples = [...drift.examples];
  for (const example of found) {
    if (examples.filter((item) => item.kind === example.kind).length < DRIFT_EXAMPLES_PER_KIND) examples.push(example);
  }
  return examples;
}

/** The drift a page's saves reveal: users new to the directory, and users whose identity fields differed. */
function driftOfPage(drift: DirectoryDrift, saves: DirectorySave[]): DirectoryDrift {
  const added = saves.filter((save) => !save.before);
  const changed = saves.filter((save) => save.before && save.changedFields.length > 0);
  return {
    added: drift.added + added.length,
    changed: drift.changed + changed.length,
    missing: drift.missing,
    examples: withExamples(drift, [
      ...added.map((save) => ({ sub: save.after.sub, kind: "added" as const })),
      ...changed.map((save) => ({ sub: save.after.sub, kind: "changed" as const, fields: save.changedFields })),
    ]),
  };
}

/**
 * Takes the run to work: the one in progress if it was abandoned, a new one if none is in progress, or nothing if
 * another instance is working one. Decided under a transaction-scoped advisory lock, so two instances asking at once
 * cannot both get the same run (on PGlite, one process, the lock is always free and harmless).
 */
async function claimRun(db: Database, now: Date, staleAfterMs: number): Promise<DirectoryReconcileRun | null> {
  return db.transaction(async (tx) => {
    // A one-row table expression rather than execute(): execute's result shape differs between the drivers.
    const [lock] = await tx
      .select({ locked: sql<boolean>`pg_try_advisory_xact_lock(${RECONCILE_LOCK_KEY})` })
      .from(sql`(values (1)) as one`);
    if (!lock?.locked) return null;
    const [running] = await tx
      .select()
      .from(directoryReconcileRuns)
      .where(eq(directoryReconcileRuns.status, "running"))
      .orderBy(desc(directoryReconcileRuns.startedAt))
      .limit(1);
    if (running) {
      if (now.getTime() - running.heartbeatAt.getTime() < staleAfterMs) return null;
      const [taken] = await tx
        .update(directoryReconcileRuns)
        .set({ heartbeatAt: now })
        .where(eq(directoryReconcileRuns.id, running.id))
        .returning();
      return taken ?? null;
    }
    const [created] = await tx.insert(directoryReconcileRuns).values({ startedAt: now, heartbeatAt: now }).returning();
    return created ?? null;
  });
}

/**
 * Writes the run row only while it is still this worker's: the heartbeat this worker wrote last is the fence (a
 * takeover writes a new one). Throws RunTakenOver otherwise, rolling back the caller's transaction.
 */
async function updateOwnRun(
  tx: Database,
  run: DirectoryReconcileRun,
  changes: Partial<DirectoryReconcileRun>,
): Promise<DirectoryReconcileRun> {
  const [updated] = await tx
    .update(directoryReconcileRuns)
    .set(changes)
    .where(
      and(
        eq(directoryReconcileRuns.id, run.id),
        eq(directoryReconcileRuns.status, "running"),
        eq(directoryReconcileRuns.heartbeatAt, run.heartbeatAt),
      ),
    )
    .returning();
  if (!updated) throw new RunTakenOver();
  return updated;
}

/**
 * Group memberships, read group by group (ListGroups, then ListUsersInGroup for each): ListUsers does not give
 * them, and a pool has few groups with few members, so this costs a handful of requests where asking per user
 * (AdminListGroupsForUser) would double the run's requests.
 */
async function readGroupMemberships(
  identity: ReconcileDependencies["identity"],
  paced: Paced,
): Promise<Map<string, string[]>> {
  const groupsBySub = new Map<string, string[]>();
  let groupsToken: string | undefined;
  do {
    const page = await paced(() => identity.listGroups({ nextToken: groupsToken }));
    for (const groupName of page.groups) {
      let membersToken: string | undefined;
      do {
        const members = await paced(() => identity.listUsersInGroup({ groupName, nextToken: membersToken }));
        for (const sub of members.subs) groupsBySub.set(sub, [...(groupsBySub.get(sub) ?? []), groupName]);
        membersToken = members.nextToken;
      } while (membersToken);
    }
    groupsToken = page.nextToken;
  } while (groupsToken);
  return groupsBySub;
}

/** Saves one ListUsers page and moves the run past it, in one transaction: a page is either done or not read. */
async function savePage(
  deps: ReconcileDependencies,
  run: DirectoryReconcileRun,
  page: IdentityUserPage,
  groupsBySub: Map<string, string[]>,
): Promise<DirectoryReconcileRun> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const saves = await saveManyFromCognito(
      tx,
      page.users.map((user) => ({ user, groups: groupsBySub.get(user.sub) ?? [] })),
      now,
    );
    return updateOwnRun(tx, run, {
      heartbeatAt: now,
      paginationToken: page.paginationToken ?? null,
      pagesRead: run.pagesRead + 1,
      usersSeen: run.usersSeen + page.users.length,
      drift: driftOfPage(run.drift, saves),
    });
  });
}

/**
 * The end of a walk: rows the run did not see (not written from Cognito or by the app since the run started) are
 * users Cognito no longer has.
 */
async function finishRun(deps: ReconcileDependencies, run: DirectoryReconcileRun): Promise<DirectoryReconcileRun> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const missing = await tx
      .update(memberDirectory)
      .set({ missingFromCognitoAt: now, syncedAt: now })
      .where(
        and(
          isNull(memberDirectory.missingFromCognitoAt),
          or(isNull(memberDirectory.seenInCognitoAt), lt(memberDirectory.seenInCognitoAt, run.startedAt)),
          lt(memberDirectory.syncedAt, run.startedAt),
        ),
      )
      .returning({ sub: memberDirectory.sub });
    const drift: DirectoryDrift = {
      ...run.drift,
      missing: missing.length,
      examples: withExamples(
        run.drift,
        missing.map(({ sub }) => ({ sub, kind: "missing" as const })),
      ),
    };
    return updateOwnRun(tx, run, { heartbeatAt: now, finishedAt: now, status: "finished", drift });
  });
}

/**
 * One reconcile of the directory with Cognito: walks ListUsers page by page from where the run stands (a new run
 * from the start, an abandoned one from its stored token), upserting every user, then marks the rows not seen as
 * missing. Paced at `requestsPerSecond`. Only one instance works a run at a time (claimRun, and the heartbeat
 * fence on every write). A failure ends the run as "failed" with the error; the next run starts from the beginning.
 */
export async function reconcileDirectory(
  deps: ReconcileDependencies,
  options: ReconcileOptions,
): Promise<ReconcileOutcome> {
  let run = await claimRun(deps.db, deps.clock.now(), options.staleAfterMs ?? RECONCILE_STALE_AFTER_MS);
  if (!run) return { kind: "busy" };
  const paced = createRequestPacer(options.requestsPerSecond);
  try {
    const groupsBySub = await readGroupMemberships(deps.identity, paced);
    let pagesThisCall = 0;
    do {
      if (options.signal?.aborted || (options.maxPages !== undefined && pagesThisCall >= options.maxPages)) {
        return { kind: "paused", run: await releaseRun(deps.db, run) };
      }
      const token = run.paginationToken ?? undefined;
      const page = await paced(() => deps.identity.listUsers({ paginationToken: token, limit: RECONCILE_PAGE_SIZE }));
      run = await savePage(deps, run, page, groupsBySub);
      pagesThisCall += 1;
    } while (run.paginationToken);
    return { kind: "finished", run: await finishRun(deps, run) };
  } catch (error) {
    if (error instanceof RunTakenOver) return { kind: "lost" };
    await deps.db
      .update(directoryReconcileRuns)
      .set({ status: "failed", finishedAt: deps.clock.now(), lastError: String(error) })
      .where(and(eq(directoryReconcileRuns.id, run.id), eq(directoryReconcileRuns.heartbeatAt, run.heartbeatAt)));
    throw error;
  }
}

/** A paused run: its heartbeat set far in the past, so the next claim (by any instance) resumes it at once. */
async function releaseRun(db: Database, run: DirectoryReconcileRun): Promise<DirectoryReconcileRun> {
  return db.transaction((tx) => updateOwnRun(tx, run, { heartbeatAt: new Date(0) }));
}

export interface ReconcileReport {
  startedAt: Date;
  finishedAt: Date | null;
  status: string;
  usersSeen: number;
  pagesRead: number;
  drift: DirectoryDrift;
  lastError: string | null;
}

/** The latest run, for GET /api/admin/user-pool; null before the first. */
export async function latestReconcileReport(db: Database): Promise<ReconcileReport | null> {
  const [run] = await db.select().from(directoryReconcileRuns).orderBy(desc(directoryReconcileRuns.startedAt)).limit(1);
  if (!run) return null;
  const { startedAt, finishedAt, status, usersSeen, pagesRead, drift, lastError } = run;
  return { startedAt, finishedAt, status, usersSeen, pagesRead, drift, lastError };
}

/**
 * Runs the reconcile on a schedule inside the server process: first after `firstRunDelayMs` (by default
 * RECONCILE_FIRST_RUN_DELAY_MS, or one interval if shorter), then every
 * `intervalMs` (every instance ticks; claimScheduledTurn lets the first tick of an interval run, and claimRun lets one
 * work at a time). A run interrupted by a restart is resumed by the next
 * attempt once its heartbeat is stale. Returns a stop function that also ends the walk in hand after its current
 * page, releasing the run for the next attempt.
 */
export function scheduleDirectoryReconcile(
  deps: ReconcileDependencies,
  options: { requestsPerSecond: number; intervalMs: number; firstRunDelayMs?: number },
): () => void {
  const stopping = new AbortController();
  const stopSchedule = scheduleRepeating(
    async () => {
      try {
        if (!(await claimScheduledTurn(deps.db, "reconcile", options.intervalMs))) {
          return countJobRun("reconcile", "not-due", false);
        }
        const outcome = await reconcileDirectory(deps, {
          requestsPerSecond: options.requestsPerSecond,
          signal: stopping.signal,
        });
        countJobRun("reconcile", outcome.kind, outcome.kind === "finished");
        if (outcome.kind === "finished") {
          const { usersSeen, drift } = outcome.run;
          logger.info({ usersSeen, drift }, "member directory reconciled with Cognito");
        }
      } catch (error) {
        countJobRun("reconcile", "failed", false);
        logger.warn({ err: error }, "the directory reconcile failed; it runs again at the next interval");
      }
    },
    {
      firstRunDelayMs: options.firstRunDelayMs ?? Math.min(RECONCILE_FIRST_RUN_DELAY_MS, options.intervalMs),
      intervalMs: options.intervalMs,
    },
  );
  return () => {
    stopping.abort();
    stopSchedule();
  };
}
