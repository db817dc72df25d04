import { and, asc, eq, isNotNull, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberSessions } from "~db/schema";
import { deviceKeyAsNamed } from "./device-keys.server";

export interface SessionDevice {
  id: string;
  /** The browser's long-lived device key as the API names the device (a sibling's key as it registered it). */
  deviceKey: string;
  deviceName: string;
  browser: string;
  lastLoginAt: Date;
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
