import { afterAll, beforeAll } from "vitest";
import type { DatabaseHandle } from "~db/client.server";
import { createAppServices } from "~/composition-root.server";
import { parseConfig } from "~/config.server";
import type { StandIns } from "~/server/start-server";
import type { AppServices, Clock } from "~/services.server";
import { startEmbeddedStack } from "./stand-ins/embedded-stack";
import { makeTempDir } from "./temp-dir";
import { useTestDatabase } from "./test-database";

/** The app's services on real parts, for a file that calls route modules and domain functions directly. */
export interface TestServices {
  /** The services of a dev instance at the file's origin. */
  services: AppServices;
  /** The embedded Cognito stand-in and SMTP capture. */
  stack: StandIns;
  /** The Cognito stand-in's port (harness and SDK). */
  standInPort: number;
  /** The file's test database (useTestDatabase), which the services use. */
  db: DatabaseHandle["db"];
  /** The instance's data directory: the stand-ins' files and the dev mailbox. */
  dataDir: string;
}

/**
 * Before the file's tests: the embedded stand-ins in a temporary directory, the file's test database
 * (useTestDatabase) and the services of a dev instance at `origin` on them; after: stopped and removed. The
 * stand-in's pool is provisioned for `origin` (its passkeys' relying party, its invitations' links), as the
 * deployment contract asks of Cognito's. All but `dataDir` are filled in once started.
 */
export function useTestServices(options: {
  label: string;
  origin: string;
  clock?: Clock;
  /** Settings beyond a dev instance's defaults (a rate limit, COOKIE_DOMAIN). */
  env?: Record<string, string>;
  /**
   * On PostgreSQL, a database of the file's own (useTestDatabase). A file that sends the outbox's due mail needs
   * it: on the shared database its sendDueMail would take the other files' mail, and theirs its own. So does one
   * that runs the staff group check: each file's check reads its own stand-in's group into the one directory and
   * check time, which takes the other files' staff out of the group.
   */
  ownDatabase?: boolean;
}): TestServices {
  const temp = makeTempDir(options.label);
  const database = useTestDatabase(`${options.label}-db`, { ownDatabase: options.ownDatabase });
  const parts = { dataDir: temp.dir } as TestServices;

  beforeAll(async () => {
    parts.stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin", appOrigin: options.origin });
    const config = parseConfig({
      ...parts.stack.env,
      APP_MODE: "dev",
      APP_ORIGIN: options.origin,
      DATA_DIR: temp.dir,
      ...options.env,
    });
    parts.db = database().db;
    parts.services = createAppServices(config, parts.db, options.clock);
    parts.standInPort = Number(new URL(parts.stack.env.COGNITO_ENDPOINT!).port);
  }, 150_000);

  afterAll(async () => {
    await parts.stack?.stop();
    temp.remove();
  });

  return parts;
}
