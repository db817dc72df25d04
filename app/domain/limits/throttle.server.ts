import { sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { throttleSlots } from "~db/schema";

/**
 * A rate limit shared by every app instance on one database: the next free slot (GCRA's "theoretical arrival
 * time") in one row per named limit. Taking a slot is one atomic statement, so instances never hand out the same
 * slot and the total never runs above the rate; the caller waits until its slot. Unused slots (a caller that died
 * while waiting) are simply lost: the rate can only come out lower, never higher. The database's clock decides
 * (clock_timestamp(), not now(): a slot is reserved against the moment of the statement, not of a transaction).
 */
export interface Throttle {
  /** Waits until this caller may make one call; rejects with the signal's reason when aborted while waiting. */
  takeSlot(signal?: AbortSignal): Promise<void>;
}

/** How late after its slot a call may still start, as a share of the spacing (below 1: see createThrottle). */
export const SLOT_TOLERANCE_OF_SPACING = 0.9;

/** The import's creations in Cognito (AdminCreateUser, in the account-wide UserCreation quota). */
export const CSV_IMPORT_THROTTLE_NAME = "cognito.user-creation";

/**
 * Reserves the next slot and answers how long to wait for it. A limit with no row yet starts now. A slot that
 * fell behind real time (nobody called for a while) restarts from now: there is no burst allowance, so even the
 * first second after a pause stays at the rate.
 */
export async function reserveSlot(db: Database, name: string, perSecond: number): Promise<number> {
  const spacingMs = 1000 / perSecond;
  const interval = sql`make_interval(secs => ${spacingMs / 1000}::double precision)`;
  const [slot] = await db
    .insert(throttleSlots)
    .values({ name, nextAt: sql`clock_timestamp() + ${interval}` })
    .onConflictDoUpdate({
      target: throttleSlots.name,
      set: { nextAt: sql`greatest(${throttleSlots.nextAt}, clock_timestamp()) + ${interval}` },
    })
    // next_at here is the new value: the reserved slot starts one spacing before it.
    .returning({
      waitMs: sql<string>`greatest(0, extract(epoch from (${throttleSlots.nextAt} - ${interval} - clock_timestamp())) * 1000)`,
    });
  return Number(slot?.waitMs ?? 0);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The named limit at `perSecond` calls a second in total, across every instance sharing the database.
 *
 * A slot is only good for a call made soon after its time: a process that stalls (a busy event loop, a slow answer
 * to the reservation itself) and wakes late would otherwise send its call beside the next slot's, and two calls would
 * land closer than the spacing. So a slot is used only when, by this process's own clock, less than one spacing can
 * have passed since it began (measured from before the reservation was sent, so no clock needs to agree with the
 * database's); a later one is dropped and another reserved. Dropped slots lower the rate, never raise it. Calls
 * then start within [slot, slot + spacing), so any window of a second holds at most the rate's calls plus one.
 *
 * A process reserves one slot at a time (its lanes queue here, not on the row's lock in the database), which keeps
 * each reservation's round trip, and so the uncertainty about when its slot began, short.
 */
export function createThrottle(db: Database, name: string, perSecond: number): Throttle {
  const toleranceMs = (1000 / perSecond) * SLOT_TOLERANCE_OF_SPACING;
  let reserving: Promise<unknown> = Promise.resolve();
  /** Reserves after the reservation before it in this process has been answered. */
  const reserveInTurn = () => {
    const turn = reserving.then(async () => {
      const askedAt = performance.now();
      const waitMs = await reserveSlot(db, name, perSecond);
      return { askedAt, waitMs, heardAt: performance.now() };
    });
    reserving = turn.catch(() => {});
    return turn;
  };
  return {
    async takeSlot(signal) {
      for (;;) {
        // The slot began `waitMs` after the statement ran, somewhere between asking and hearing back: wait for the
        // latest moment it can be (never early), and judge lateness from the earliest.
        const { askedAt, waitMs, heardAt } = await reserveInTurn();
        if (waitMs > 0) await pause(heardAt + waitMs - performance.now(), signal);
        if (performance.now() - (askedAt + waitMs) < toleranceMs) return;
        signal?.throwIfAborted();
      }
    },
  };
}
