import { sql } from "drizzle-orm";
import type { Database } from "~db/client.server";

/**
 * Serializes everything that changes one member's sessions, so two sign-ins at the limit cannot both take the
 * last slot (a check-then-insert without it would let them). Held until the transaction ends.
 */
export async function lockMember(tx: Database, sub: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${sub}, 0))`);
}
