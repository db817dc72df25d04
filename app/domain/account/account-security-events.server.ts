import type { Database } from "../../../db/client.server";
import { logger } from "~/integrations/logger.server";

/** What a member did on their own account that the security record keeps, with the session they did it on. */
export type AccountSecurityEvent =
  | { kind: "reauthenticated"; sub: string; sessionId: string; occurredAt: Date }
  | { kind: "dataCopyDownloaded"; sub: string; sessionId: string; occurredAt: Date };

/**
 * The one place re-authentication and the data-copy download hand their events to. It is given the database so that
 * the security record (app/domain/security/) can be written here as a row; the log line keeps the event findable by
 * session and request id meanwhile, without the member's address.
 */
export async function recordAccountSecurityEvent(_deps: { db: Database }, event: AccountSecurityEvent): Promise<void> {
  logger.info({ securityEvent: event.kind, sessionId: event.sessionId }, "member security event");
}
