import type { CsvCopy, Database } from "~db/client.server";
import type { Config } from "~/config.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { Mailer } from "~/integrations/mailer.server";

/** The time, as a service: tests of expiry and retention set it instead of waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * What loaders, actions, middleware and the domain work with. The composition root (app/composition-root.server.ts)
 * builds them; requests find them in their router context (app/router-context.server.ts).
 */
export interface AppServices {
  config: Config;
  db: Database;
  /** PostgreSQL's CSV of a query, streamed (downloads): see db/client.server.ts. */
  csvCopy: CsvCopy;
  identity: IdentityProvider;
  mailer: Mailer;
  clock: Clock;
}
