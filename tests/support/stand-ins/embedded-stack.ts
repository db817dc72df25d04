import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import type { StandIns } from "~/server/start-server";
import { listMailboxEntries, mailboxDirectory } from "./dev-mailbox";
import { startCognitoStandIn } from "./cognito-stand-in";
import { startMailCapture } from "./mail-capture";
import { provisionStandInPool, readDevAdmin } from "./provision-cognito";

const STAND_IN_REGION = "ap-northeast-1";

/** The settings that point an instance at stand-ins another instance started (`joinRunningStack`). */
export const JOIN_SETTINGS = [
  "COGNITO_ENDPOINT",
  "COGNITO_USER_POOL_ID",
  "COGNITO_CLIENT_ID",
  "COGNITO_STAFF_CLIENT_ID",
  "COGNITO_SERVER_CLIENT_ID",
  "SMTP_URL",
] as const;

async function loadOrCreateSessionSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "session-secret");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const secret = randomBytes(32).toString("base64url");
    await writeFile(file, secret, { mode: 0o600 });
    return secret;
  }
}

/**
 * Everything `npm run dev` and `npm run preview` need that production gets from outside: the Cognito
 * stand-in (provisioned), an SMTP capture, and a session secret kept in the data directory. PGlite needs no
 * start here: it is the default whenever DATABASE_URL is unset.
 */
export async function startEmbeddedStack(options: {
  dataDir: string;
  adminGroup: string;
  cognitoPort?: number;
  smtpPort?: number;
  /** The origin the pool's invitations and passkeys are for: APP_ORIGIN (or HOST and PORT) when not given. */
  appOrigin?: string;
}): Promise<StandIns> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const mailboxDir = mailboxDirectory(dataDir);
  const mail = await startMailCapture({ mailboxDir, port: options.smtpPort });
  const standIn = await startCognitoStandIn({
    dataDir: path.join(dataDir, "cognito"),
    mailboxDir,
    port: options.cognitoPort,
  }).catch(async (error: unknown) => {
    await mail.stop();
    throw error;
  });
  try {
    const cognito = createCognitoClient({
      region: STAND_IN_REGION,
      endpoint: standIn.endpoint,
      userPoolId: "",
      clientId: "",
    });
    const pool = await provisionStandInPool(cognito, {
      standInEndpoint: standIn.endpoint,
      dataDir,
      adminGroup: options.adminGroup,
      appOrigin:
        options.appOrigin ||
        process.env.APP_ORIGIN ||
        `http://${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT ?? "3000"}`,
    });
    cognito.destroy();
    return {
      env: {
        COGNITO_ENDPOINT: standIn.endpoint,
        COGNITO_REGION: STAND_IN_REGION,
        COGNITO_USER_POOL_ID: pool.userPoolId,
        COGNITO_CLIENT_ID: pool.clientId,
        COGNITO_STAFF_CLIENT_ID: pool.staffClientId,
        COGNITO_SERVER_CLIENT_ID: pool.serverClientId,
        SMTP_URL: mail.url,
        SESSION_SECRETS: await loadOrCreateSessionSecret(dataDir),
      },
      admin: pool.admin,
      mailbox: { entries: () => listMailboxEntries(mailboxDir) },
      async stop() {
        await Promise.all([standIn.stop(), mail.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([standIn.stop(), mail.stop()]);
    throw error;
  }
}

/**
 * A second (third...) instance on stand-ins another one started: nothing to start or stop, the pool and mail capture
 * are named by the environment (JOIN_SETTINGS). The session secret and the mailbox are the data directory's, so an
 * instance given the first one's DATA_DIR shares its sessions, its captured mail and its development admin.
 * Null when none of JOIN_SETTINGS is set; a list of problems when only some are, or when the database is PGlite,
 * which one process alone may open.
 */
export async function joinRunningStack(
  env: NodeJS.ProcessEnv,
  dataDirOption: string,
): Promise<StandIns | { problems: string[] } | null> {
  const missing = JOIN_SETTINGS.filter((name) => !env[name]);
  if (missing.length === JOIN_SETTINGS.length) return null;
  const problems = missing.map(
    (name) => `${name} is not set: joining running stand-ins needs all of ${JOIN_SETTINGS.join(", ")}`,
  );
  if (!env.DATABASE_URL) {
    problems.push(
      "DATABASE_URL is not set: instances that share stand-ins share one PostgreSQL (PGlite is one process's)",
    );
  }
  if (problems.length > 0) return { problems };
  const dataDir = path.resolve(dataDirOption);
  await mkdir(dataDir, { recursive: true });
  const mailboxDir = mailboxDirectory(dataDir);
  return {
    env: { SESSION_SECRETS: await loadOrCreateSessionSecret(dataDir) },
    admin: await readDevAdmin(dataDir),
    mailbox: { entries: () => listMailboxEntries(mailboxDir) },
    async stop() {},
  };
}
