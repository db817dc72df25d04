import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type JWK, calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";
import { SIBLING_SERVICES, type SiblingService } from "~/config.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import type { StandIns } from "~/server/start-server";
import { listMailboxEntries, mailboxDirectory } from "./dev-mailbox";
import { startCognitoStandIn } from "./cognito-stand-in";
import {
  eventCaptureDirectory,
  listCapturedDeliveries,
  logoutUriOf,
  readRunningReceiverUrl,
  startEventCapture,
  webhookUrlOf,
} from "./event-capture";
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

/** The settings that make an instance join `stack` (as a second `npm run dev` would be given them). */
export function joinSettingsOf(stack: StandIns): Record<(typeof JOIN_SETTINGS)[number], string> {
  return Object.fromEntries(JOIN_SETTINGS.map((name) => [name, stack.env[name] ?? ""])) as Record<
    (typeof JOIN_SETTINGS)[number],
    string
  >;
}

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

/** What the sibling services' settings hold that is secret: made once per data directory, like the session secret. */
interface SiblingSecrets {
  /** Each service's Standard Webhooks secret (`whsec_` and the base64 of 32 random bytes). */
  webhookSecrets: Record<SiblingService, string>;
  /** Each service's credential for the event feed. */
  feedTokens: Record<SiblingService, string>;
  /** The private ES256 key that signs logout tokens, with its kid and alg (LOGOUT_TOKEN_SIGNING_KEYS' shape). */
  logoutTokenSigningKey: JWK;
}

const byService = (make: () => string) =>
  Object.fromEntries(SIBLING_SERVICES.map((service) => [service, make()])) as Record<SiblingService, string>;

/** The data directory's sibling secrets, made on first use; tests sign as the app does with them. */
export async function loadOrCreateSiblingSecrets(dataDir: string): Promise<SiblingSecrets> {
  const file = path.join(dataDir, "sibling-secrets.json");
  try {
    return JSON.parse(await readFile(file, "utf8")) as SiblingSecrets;
  } catch {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = await exportJWK(privateKey);
    const secrets: SiblingSecrets = {
      webhookSecrets: byService(() => `whsec_${randomBytes(32).toString("base64")}`),
      feedTokens: byService(() => randomBytes(32).toString("base64url")),
      logoutTokenSigningKey: { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "ES256" },
    };
    await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    return secrets;
  }
}

const envSuffixOf = (service: SiblingService) => service.toUpperCase();

/** Every sibling service's webhook and logout URI on the event capture, with the data directory's secrets. */
function siblingEventSettings(receiverUrl: string, secrets: SiblingSecrets): Record<string, string> {
  const settings: Record<string, string> = {
    LOGOUT_TOKEN_SIGNING_KEYS: JSON.stringify([secrets.logoutTokenSigningKey]),
  };
  for (const service of SIBLING_SERVICES) {
    const suffix = envSuffixOf(service);
    settings[`SERVICE_WEBHOOK_URL_${suffix}`] = webhookUrlOf(receiverUrl, service);
    settings[`SERVICE_WEBHOOK_SECRETS_${suffix}`] = secrets.webhookSecrets[service];
    settings[`SERVICE_LOGOUT_URI_${suffix}`] = logoutUriOf(receiverUrl, service);
    settings[`SERVICE_FEED_TOKENS_${suffix}`] = secrets.feedTokens[service];
  }
  return settings;
}

/**
 * The secrets the app signs a service's webhooks with: the environment's when it sets them (an operator's setting
 * wins, fillUnsetSettings), else the data directory's. Read at each delivery, after the server has filled the
 * environment.
 */
function webhookSecretsOf(secrets: SiblingSecrets) {
  return (service: SiblingService): string[] => {
    const configured = process.env[`SERVICE_WEBHOOK_SECRETS_${envSuffixOf(service)}`];
    if (!configured) return [secrets.webhookSecrets[service]];
    return configured
      .split(",")
      .map((secret) => secret.trim())
      .filter(Boolean);
  };
}

/**
 * Everything `npm run dev` and `npm run preview` need that production gets from outside: the Cognito
 * stand-in (provisioned), an SMTP capture, a receiver standing in for the sibling services' webhooks and logout
 * URIs (the event capture), and the secrets kept in the data directory (the session secret; the siblings' webhook
 * secrets and feed tokens, the logout-token signing key). PGlite needs no start here: it is the default whenever
 * DATABASE_URL is unset.
 */
export async function startEmbeddedStack(options: {
  dataDir: string;
  adminGroup: string;
  cognitoPort?: number;
  smtpPort?: number;
  eventsPort?: number;
  /**
   * The origin the pool's invitations and passkeys are for, and the issuer whose published keys the event capture
   * checks logout tokens with: APP_ORIGIN (or HOST and PORT) when not given.
   */
  appOrigin?: string;
}): Promise<StandIns> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const appOrigin =
    options.appOrigin ||
    process.env.APP_ORIGIN ||
    `http://${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT ?? "3000"}`;
  const mailboxDir = mailboxDirectory(dataDir);
  const eventsDir = eventCaptureDirectory(dataDir);
  const siblingSecrets = await loadOrCreateSiblingSecrets(dataDir);
  const mail = await startMailCapture({ mailboxDir, port: options.smtpPort });
  const events = await startEventCapture({
    directory: eventsDir,
    appOrigin: new URL(appOrigin).origin,
    webhookSecretsOf: webhookSecretsOf(siblingSecrets),
    port: options.eventsPort,
  }).catch(async (error: unknown) => {
    await mail.stop();
    throw error;
  });
  const standIn = await startCognitoStandIn({
    dataDir: path.join(dataDir, "cognito"),
    mailboxDir,
    port: options.cognitoPort,
  }).catch(async (error: unknown) => {
    await Promise.all([mail.stop(), events.stop()]);
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
      appOrigin,
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
        ...siblingEventSettings(events.url, siblingSecrets),
      },
      admin: pool.admin,
      mailbox: { entries: () => listMailboxEntries(mailboxDir) },
      events: { deliveries: () => listCapturedDeliveries(eventsDir) },
      async stop() {
        await Promise.all([standIn.stop(), mail.stop(), events.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([standIn.stop(), mail.stop(), events.stop()]);
    throw error;
  }
}

/**
 * A second (third...) instance on stand-ins another one started: nothing to start or stop, the pool and mail capture
 * are named by the environment (JOIN_SETTINGS). The session secret and the mailbox are the data directory's, so an
 * instance given the first one's DATA_DIR shares its sessions, its captured mail and its development admin. So is the
 * event capture: the running receiver's URL and the siblings' secrets are read from there (never made anew, which
 * would sign with secrets the receiver does not know); with another DATA_DIR the instance gets no sibling settings
 * but the environment's, and its /__dev/events/ shows that directory's (empty) record.
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
  const eventsDir = eventCaptureDirectory(dataDir);
  const receiverUrl = await readRunningReceiverUrl(eventsDir);
  return {
    env: {
      SESSION_SECRETS: await loadOrCreateSessionSecret(dataDir),
      ...(receiverUrl ? siblingEventSettings(receiverUrl, await loadOrCreateSiblingSecrets(dataDir)) : {}),
    },
    admin: await readDevAdmin(dataDir),
    mailbox: { entries: () => listMailboxEntries(mailboxDir) },
    events: { deliveries: () => listCapturedDeliveries(eventsDir) },
    async stop() {},
  };
}
