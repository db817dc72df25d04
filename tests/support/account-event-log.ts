import { and, asc, eq, gt } from "drizzle-orm";
import { expect } from "vitest";
import type { Database } from "~db/client.server";
import { accountEvents, memberSessions } from "~db/schema";

/** Reading members' account events in tests: what a journey recorded, and the sid a sibling knows a session by. */
export function accountEventLog(db: () => Database) {
  const eventsAfter = (sub: string, after = 0) =>
    db()
      .select({ type: accountEvents.type, data: accountEvents.data, sequence: accountEvents.memberSequence })
      .from(accountEvents)
      .where(and(eq(accountEvents.sub, sub), gt(accountEvents.memberSequence, after)))
      .orderBy(asc(accountEvents.memberSequence));
  return {
    /** The member's last sequence number (0: no event yet). */
    async lastSequence(sub: string): Promise<number> {
      return (await eventsAfter(sub)).at(-1)?.sequence ?? 0;
    },
    /** The member's events after sequence `after` (type and data), checked to be numbered after it without a gap. */
    async newEvents(sub: string, after: number) {
      const events = await eventsAfter(sub, after);
      expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => after + index + 1));
      return events.map(({ type, data }) => ({ type, data }));
    },
    /** The sid of a session row: its sign-in's origin_jti. */
    async sidOfSession(sessionId: string): Promise<string> {
      const [row] = await db()
        .select({ originJti: memberSessions.originJti })
        .from(memberSessions)
        .where(eq(memberSessions.id, sessionId));
      return row!.originJti!;
    },
  };
}
