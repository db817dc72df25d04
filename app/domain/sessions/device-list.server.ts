import { and, asc, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberSessions, securityEvents } from "~db/schema";
import { deviceKeyAsNamed } from "./device-keys.server";

export interface SessionDevice {
  id: string;
  /** The browser's long-lived device key as the API names the device (a sibling's key as it registered it). */
  deviceKey: string;
  deviceName: string;
  browser: string;
  lastLoginAt: Date;
  /** When the browser last renewed its access token; null when it has not since signing in. */
  lastActiveAt: Date | null;
  current: boolean;
}

/** Which of the listed devices is the one asking: by its session row (pages) or its token's sign-in (API). */
export type CurrentDevice = { sessionId?: string | undefined; originJti?: string | undefined };

/** The member's active (signed-in) browsers, oldest login first, with the asking one marked current. */
export async function listActiveDevices(
  db: Database,
  sub: string,
  current: CurrentDevice = {},
): Promise<SessionDevice[]> {
  const rows = await db
    .select({
      id: memberSessions.id,
      deviceKey: memberSessions.deviceKey,
      originJti: memberSessions.originJti,
      deviceName: memberSessions.deviceName,
      browser: memberSessions.browser,
      lastLoginAt: memberSessions.lastLoginAt,
      lastActiveAt: memberSessions.lastActiveAt,
    })
    .from(memberSessions)
    .where(and(eq(memberSessions.sub, sub), isNull(memberSessions.revokedAt), isNotNull(memberSessions.activatedAt)))
    .orderBy(asc(memberSessions.lastLoginAt));
  return rows.map(({ originJti, ...row }) => ({
    ...row,
    deviceKey: deviceKeyAsNamed(row.deviceKey),
    current: row.id === current.sessionId || (!!originJti && originJti === current.originJti),
  }));
}

/**
 * The IP address each of these sessions signed in from, as the member's security record holds it (its sign-in
 * event); a session the record has no sign-in for (a sibling's registered device, a sign-in older than the record)
 * is missing from the map. For the device pages only: the API's list does without it.
 */
export async function findSignInAddresses(
  db: Database,
  sub: string,
  sessionIds: readonly string[],
): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .select({ sessionId: securityEvents.sessionId, ipAddress: securityEvents.ipAddress })
    .from(securityEvents)
    .where(
      and(
        eq(securityEvents.sub, sub),
        eq(securityEvents.kind, "sign-in"),
        inArray(securityEvents.sessionId, [...sessionIds]),
        isNotNull(securityEvents.ipAddress),
      ),
    )
    // Oldest first, so the latest sign-in of a session (a browser signing in again keeps its row) is kept.
    .orderBy(asc(securityEvents.occurredAt));
  return new Map(rows.flatMap((row) => (row.sessionId && row.ipAddress ? [[row.sessionId, row.ipAddress]] : [])));
}
