import { parseArgs } from "node:util";
import { z } from "zod";
import { type AccountEventType, isAccountEventType } from "~/domain/events/account-events.server";
import type { RateLimitPolicyName } from "~/domain/limits/rate-limit.server";

/**
 * Every setting the app reads from the environment, validated once at boot.
 * The README's configuration table documents each variable (tests/unit/server/readme-configuration.test.ts keeps the two
 * equal, through CONFIG_VARIABLES).
 *
 * Modes: `production` needs real configuration (Cognito, PostgreSQL, SMTP, secrets) and refuses the stand-in;
 * `dev` and `preview` run on embedded defaults that the stand-ins (started by app/server/dev-entry.ts) fill in first.
 */
export const APP_MODES = ["dev", "preview", "production"] as const;
export type AppMode = (typeof APP_MODES)[number];

/**
 * The mode named by the server's `--mode=<mode>` (or `--mode <mode>`) argument. There is no default: a missing or
 * misspelt mode must never fall back to development, whose tools and stand-ins production must not expose.
 */
export function parseModeArgument(args: string[]): AppMode {
  let mode: string | undefined;
  try {
    mode = parseArgs({ args, options: { mode: { type: "string" } }, strict: true, allowPositionals: false }).values
      .mode;
  } catch (error) {
    throw new ConfigError([`${(error as Error).message}; the server takes only --mode=<${APP_MODES.join("|")}>`]);
  }
  if (mode === undefined) throw new ConfigError([`--mode is required: one of ${APP_MODES.join(", ")}`]);
  if (!(APP_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError([`--mode=${mode} is not a mode: use one of ${APP_MODES.join(", ")}`]);
  }
  return mode as AppMode;
}

const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

const optionalUrl = z.url().optional();

/** An empty variable (`APP_ORIGIN=` in an env file) means unset, not an invalid value. */
const emptyAsUnset = (value: unknown) => (value === "" ? undefined : value);

/** Hits allowed per window for one rate-limit policy; unset keeps the policy's default. */
const attemptLimit = z.coerce.number().int().min(1).max(1_000_000).optional();

const EnvSchema = z.object({
  APP_MODE: z.enum(APP_MODES).default("dev"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  APP_ORIGIN: z.preprocess(emptyAsUnset, z.url().optional()),
  // The operators' metrics on a port of their own (app/server/metrics-server.ts); unset, no metrics are served.
  METRICS_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(65535).optional()),
  // After SIGTERM, how long the instance keeps serving while /readyz/ answers 503, so that the load balancer stops
  // sending it requests before it stops accepting connections (app/server/start-server.ts, docs/deployment.md).
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(120).default(5),
  // The HTTP layer's concurrency limit (app/server/concurrency-limit.ts). Requests in progress at once: the cap bounds
  // the live objects of requests that wait on the database or Cognito, and what the garbage collector goes through.
  REQUESTS_IN_PROGRESS_MAX: z.coerce.number().int().min(1).max(1024).default(32),
  // Requests that may wait for a place, and for how long; past either a request is answered 503 with Retry-After.
  REQUESTS_WAITING_MAX: z.coerce.number().int().min(0).max(100_000).default(256),
  REQUEST_WAIT_MAX_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  SESSION_SECRETS: commaList,
  COOKIE_DOMAIN: z.string().optional(),
  // No default here: production must say how many proxies it sits behind, even 0 (see parseConfig).
  TRUST_PROXY_HOPS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(10).optional()),

  DATABASE_URL: optionalUrl,
  DATA_DIR: z.string().default(".data"),

  COGNITO_REGION: z.string().optional(),
  COGNITO_USER_POOL_ID: z.string().optional(),
  COGNITO_CLIENT_ID: z.string().optional(),
  COGNITO_STAFF_CLIENT_ID: z.string().optional(),
  COGNITO_SERVER_CLIENT_ID: z.string().optional(),
  COGNITO_ENDPOINT: optionalUrl,
  ADMIN_GROUP: z.string().min(1).default("admin"),
  DEVICE_LIMIT: z.coerce.number().int().min(1).max(100).default(3),
  // The member directory's reconcile job (app/domain/directory/directory-reconcile.server.ts). Cognito's ListUsers
  // quota is 30 requests per second for the whole AWS account, shared with every other caller: 25 leaves the rest
  // some room.
  DIRECTORY_RECONCILE_REQUESTS_PER_SECOND: z.coerce.number().positive().max(25).default(5),
  // 0: no schedule in the server (run `npm run directory:reconcile` from cron instead). Fractions are allowed (0.1 is
  // every 6 s), so a test of several instances sees a few intervals without waiting minutes.
  DIRECTORY_RECONCILE_INTERVAL_MINUTES: z.coerce.number().min(0).max(10_080).default(360),
  // The retention purge and the two-systems repairs (app/domain/jobs/purge.server.ts). 0: no schedule in the server
  // (run `npm run purge` from cron instead). Fractions as above.
  PURGE_INTERVAL_MINUTES: z.coerce.number().min(0).max(10_080).default(360),
  // The second-factor reconcile (app/domain/security/factor-reconcile.server.ts): a batch of members every interval, two
  // Cognito calls each (AdminGetUser, and an unanswered AdminInitiateAuth that names the passkeys), from quotas the
  // sign-ins share. 0: off.
  FACTOR_RECONCILE_INTERVAL_MINUTES: z.coerce.number().int().min(0).max(1_440).default(10),
  FACTOR_RECONCILE_REQUESTS_PER_SECOND: z.coerce.number().positive().max(20).default(2),
  // How often the staff group's members are read from Cognito (app/domain/directory/staff-group-check.server.ts):
  // staff rights lapse a minute after the last good read, so at most 30 s leaves a failed read room.
  STAFF_GROUP_CHECK_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(30).default(20),
  // How old the admin dashboard's figures may be (app/domain/staff/admin-dashboard.server.ts); 0: computed on every
  // view.
  ADMIN_DASHBOARD_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  // The staff CSV import (app/domain/csv-import/import-worker.server.ts): AdminCreateUser calls a second across every
  // instance. Cognito's UserCreation quota (50 a second by default, shared with SignUp by the whole AWS account) must
  // stay above it.
  CSV_IMPORT_CREATIONS_PER_SECOND: z.coerce.number().positive().max(1000).default(40),
  // Creations in flight in one process, so that Cognito's latency does not hold the rate below the target.
  CSV_IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  // How long a row an instance claimed stays its own: after a crash (kill -9, a lost host) another instance takes the
  // row over once it runs out.
  CSV_IMPORT_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),

  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default("ID <no-reply@localhost>"),

  SERVICE_HOSTS_DATA: commaList,
  SERVICE_HOSTS_COMPE: commaList,
  SERVICE_HOSTS_ONLINE: commaList,
  SERVICE_HOSTS_SHOP: commaList,
  SERVICE_ORIGIN_DATA: optionalUrl,
  SERVICE_ORIGIN_COMPE: optionalUrl,
  SERVICE_ORIGIN_ONLINE: optionalUrl,
  SERVICE_ORIGIN_SHOP: optionalUrl,
  // Account events for each sibling (app/domain/events/, docs/sibling-events.md): a Standard Webhooks endpoint, its
  // signing secrets (whsec_…, the first signs, up to two for rotation) and the event types it wants (unset: all);
  // a back-channel logout URI; the credentials its feed reader sends to GET /api/events.
  SERVICE_WEBHOOK_URL_DATA: optionalUrl,
  SERVICE_WEBHOOK_URL_COMPE: optionalUrl,
  SERVICE_WEBHOOK_URL_ONLINE: optionalUrl,
  SERVICE_WEBHOOK_URL_SHOP: optionalUrl,
  SERVICE_WEBHOOK_SECRETS_DATA: commaList,
  SERVICE_WEBHOOK_SECRETS_COMPE: commaList,
  SERVICE_WEBHOOK_SECRETS_ONLINE: commaList,
  SERVICE_WEBHOOK_SECRETS_SHOP: commaList,
  SERVICE_WEBHOOK_EVENTS_DATA: commaList,
  SERVICE_WEBHOOK_EVENTS_COMPE: commaList,
  SERVICE_WEBHOOK_EVENTS_ONLINE: commaList,
  SERVICE_WEBHOOK_EVENTS_SHOP: commaList,
  SERVICE_LOGOUT_URI_DATA: optionalUrl,
  SERVICE_LOGOUT_URI_COMPE: optionalUrl,
  SERVICE_LOGOUT_URI_ONLINE: optionalUrl,
  SERVICE_LOGOUT_URI_SHOP: optionalUrl,
  SERVICE_FEED_TOKENS_DATA: commaList,
  SERVICE_FEED_TOKENS_COMPE: commaList,
  SERVICE_FEED_TOKENS_ONLINE: commaList,
  SERVICE_FEED_TOKENS_SHOP: commaList,
  // The private keys (a JSON array of JWKs, ES256) that sign back-channel logout tokens: the first signs, all are
  // published at /.well-known/jwks.json. Required in production when a logout URI is set.
  LOGOUT_TOKEN_SIGNING_KEYS: z.preprocess(emptyAsUnset, z.string().optional()),

  DATA_TERMS_URL: z.url().default("https://data.example.jp/terms/"),
  CORPORATE_URL: z.url().default("https://www.example.jp/"),
  OFFICIAL_SOCIAL_URL: z.url().default("https://x.com/"),
  // The footer's "© 1925-2023 {holder}". The spec names no holder: unset, the footer shows the locales' placeholder.
  COPYRIGHT_HOLDER: z.preprocess(emptyAsUnset, z.string().trim().min(1).max(200).optional()),

  // One per policy in app/domain/limits/rate-limit.server.ts (README: "Configuration").
  RATE_LIMIT_SIGN_IN_PER_ACCOUNT: attemptLimit,
  RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_IP: attemptLimit,
  RATE_LIMIT_SIGN_IN_PER_KNOWN_BROWSER: attemptLimit,
  RATE_LIMIT_SIGN_IN_PER_IP: attemptLimit,
  RATE_LIMIT_SIGN_UP_PER_ACCOUNT: attemptLimit,
  RATE_LIMIT_SIGN_UP_PER_IP: attemptLimit,
  RATE_LIMIT_CODE_CHECK_PER_ACCOUNT: attemptLimit,
  RATE_LIMIT_CODE_CHECK_PER_IP: attemptLimit,
  RATE_LIMIT_CODE_RESEND_PER_ACCOUNT: attemptLimit,
  RATE_LIMIT_CODE_RESEND_PER_IP: attemptLimit,
  RATE_LIMIT_FORGOT_PASSWORD_PER_ACCOUNT: attemptLimit,
  RATE_LIMIT_FORGOT_PASSWORD_PER_IP: attemptLimit,
  RATE_LIMIT_EMAIL_CHECK_PER_MEMBER: attemptLimit,
  RATE_LIMIT_EMAIL_CHECK_PER_IP: attemptLimit,
  RATE_LIMIT_PROFILE_UPDATE_PER_MEMBER: attemptLimit,
  RATE_LIMIT_PROFILE_UPDATE_PER_IP: attemptLimit,
  RATE_LIMIT_EMAIL_CHANGE_PER_MEMBER: attemptLimit,
  RATE_LIMIT_EMAIL_CHANGE_PER_IP: attemptLimit,
  RATE_LIMIT_MEMBER_REFRESH_PER_MEMBER: attemptLimit,
  RATE_LIMIT_MEMBER_REFRESH_PER_IP: attemptLimit,
  RATE_LIMIT_DEVICE_REGISTRATION_PER_MEMBER: attemptLimit,
  RATE_LIMIT_DEVICE_REGISTRATION_PER_IP: attemptLimit,
  RATE_LIMIT_STAFF_ACTION_PER_ADMIN: attemptLimit,
  RATE_LIMIT_STAFF_ACTION_PER_IP: attemptLimit,
  RATE_LIMIT_DATA_COPY_PER_MEMBER: attemptLimit,
  RATE_LIMIT_DATA_COPY_PER_IP: attemptLimit,
  RATE_LIMIT_PASSKEY_CHANGE_PER_MEMBER: attemptLimit,
  RATE_LIMIT_PASSKEY_CHANGE_PER_IP: attemptLimit,
  RATE_LIMIT_TWO_STEP_CHANGE_PER_MEMBER: attemptLimit,
  RATE_LIMIT_TWO_STEP_CHANGE_PER_IP: attemptLimit,
});

/**
 * Where the server will listen, from PORT and HOST alone, for a check that runs before the rest of the
 * configuration can be read (dev-entry.ts); null when either is invalid, which the full parse then reports.
 */
export function listenAddressOf(env: Record<string, string | undefined>): { host: string; port: number } | null {
  const parsed = EnvSchema.pick({ PORT: true, HOST: true }).safeParse(env);
  return parsed.success ? { host: parsed.data.HOST, port: parsed.data.PORT } : null;
}

/** The name of every environment variable the schema reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** Variables that production cannot run without; embedded modes get them from the embedded stack. */
const REQUIRED_IN_PRODUCTION = [
  "APP_ORIGIN",
  "SESSION_SECRETS",
  "DATABASE_URL",
  "COGNITO_REGION",
  "COGNITO_USER_POOL_ID",
  "COGNITO_CLIENT_ID",
  "COGNITO_STAFF_CLIENT_ID",
  "COGNITO_SERVER_CLIENT_ID",
  "SMTP_URL",
] as const;

const MIN_SECRET_LENGTH = 32;

export type SiblingService = "data" | "compe" | "online" | "shop";
export const SIBLING_SERVICES: readonly SiblingService[] = ["data", "compe", "online", "shop"];
/** The services whose look the header and menu take on: the siblings' and "id", this app itself. */
export const SERVICE_THEMES = ["id", ...SIBLING_SERVICES] as const;
export type ServiceTheme = (typeof SERVICE_THEMES)[number];

export type Config = ReturnType<typeof toConfig>;

/** What one sibling service hears of account events (app/domain/events/). */
export interface SiblingEventSettings {
  /** Standard Webhooks pushes; null: none. */
  webhook: {
    url: string;
    /** `whsec_…` secrets: the first signs; two sign every delivery while a new one is rolled out. */
    secrets: string[];
    /** The types it wants; null: every type. */
    eventTypes: AccountEventType[] | null;
  } | null;
  /** Its OpenID Connect back-channel logout URI; null: none. */
  logoutUri: string | null;
  /** The credentials its feed reader may send (several while one is rotated); empty: no feed access. */
  feedTokens: string[];
}

type ParsedEnv = z.infer<typeof EnvSchema>;

const SERVICE_ENV_SUFFIXES = { data: "DATA", compe: "COMPE", online: "ONLINE", shop: "SHOP" } as const;

function siblingEventSettingsOf(env: ParsedEnv, service: SiblingService): SiblingEventSettings {
  const suffix = SERVICE_ENV_SUFFIXES[service];
  const url = env[`SERVICE_WEBHOOK_URL_${suffix}`];
  const eventTypes = env[`SERVICE_WEBHOOK_EVENTS_${suffix}`].filter(isAccountEventType);
  return {
    webhook: url
      ? { url, secrets: env[`SERVICE_WEBHOOK_SECRETS_${suffix}`], eventTypes: eventTypes.length ? eventTypes : null }
      : null,
    logoutUri: env[`SERVICE_LOGOUT_URI_${suffix}`] ?? null,
    feedTokens: env[`SERVICE_FEED_TOKENS_${suffix}`],
  };
}

/** Standard Webhooks' secrets: `whsec_` and the base64 of 24 to 64 random bytes. */
function isWebhookSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match) return false;
  const bytes = Buffer.from(match[1]!, "base64").length;
  return bytes >= 24 && bytes <= 64;
}

/** The sibling services' event settings that cannot work, by variable. */
function siblingEventProblems(env: ParsedEnv): string[] {
  const problems: string[] = [];
  for (const service of SIBLING_SERVICES) {
    const suffix = SERVICE_ENV_SUFFIXES[service];
    const url = env[`SERVICE_WEBHOOK_URL_${suffix}`];
    const secrets = env[`SERVICE_WEBHOOK_SECRETS_${suffix}`];
    const logoutUri = env[`SERVICE_LOGOUT_URI_${suffix}`];
    if (url && secrets.length === 0) problems.push(`SERVICE_WEBHOOK_SECRETS_${suffix} is required with its URL`);
    if (!url && secrets.length > 0) problems.push(`SERVICE_WEBHOOK_SECRETS_${suffix} is set without its URL`);
    if (secrets.length > 2) problems.push(`SERVICE_WEBHOOK_SECRETS_${suffix} holds at most two secrets`);
    if (secrets.some((secret) => !isWebhookSecret(secret))) {
      problems.push(`SERVICE_WEBHOOK_SECRETS_${suffix}: each is whsec_ and the base64 of 24 to 64 random bytes`);
    }
    for (const type of env[`SERVICE_WEBHOOK_EVENTS_${suffix}`]) {
      if (!isAccountEventType(type)) problems.push(`SERVICE_WEBHOOK_EVENTS_${suffix}: no event type "${type}"`);
    }
    for (const [index, token] of env[`SERVICE_FEED_TOKENS_${suffix}`].entries()) {
      if (token.length < MIN_SECRET_LENGTH) {
        problems.push(
          `SERVICE_FEED_TOKENS_${suffix} entry ${index + 1} is shorter than ${MIN_SECRET_LENGTH} characters`,
        );
      }
    }
    if (env.APP_MODE === "production") {
      for (const [name, value] of [
        [`SERVICE_WEBHOOK_URL_${suffix}`, url],
        [`SERVICE_LOGOUT_URI_${suffix}`, logoutUri],
      ] as const) {
        if (value && new URL(value).protocol !== "https:") problems.push(`${name} must be https in production`);
      }
      if (logoutUri && !env.LOGOUT_TOKEN_SIGNING_KEYS) {
        problems.push(`LOGOUT_TOKEN_SIGNING_KEYS is required in production with SERVICE_LOGOUT_URI_${suffix}`);
      }
    }
  }
  return problems;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Hosts that listen on every interface: a browser reaches them as localhost. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * Where dev and preview are announced and what their links and origin checks name when APP_ORIGIN is unset: the
 * address they listen on, so the banner's URL, mailed links and the origin check agree.
 */
function defaultOrigin(host: string, port: number): string {
  const hostname = WILDCARD_HOSTS.has(host)
    ? "localhost"
    : host.includes(":") && !host.startsWith("[")
      ? `[${host}]`
      : host;
  return `http://${hostname}:${port}`;
}

function toConfig(env: ParsedEnv) {
  const origin = env.APP_ORIGIN ?? defaultOrigin(env.HOST, env.PORT);
  return {
    mode: env.APP_MODE,
    isProduction: env.APP_MODE === "production",
    /** Development tools (mailbox, design-debug pages) exist in dev and preview only. */
    devToolsEnabled: env.APP_MODE !== "production",
    port: env.PORT,
    host: env.HOST,
    origin: new URL(origin).origin,
    metricsPort: env.METRICS_PORT,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_SECONDS * 1000,
    concurrency: {
      inProgress: env.REQUESTS_IN_PROGRESS_MAX,
      waiting: env.REQUESTS_WAITING_MAX,
      waitMs: env.REQUEST_WAIT_MAX_MS,
    },
    logLevel: env.LOG_LEVEL,
    sessionSecrets: env.SESSION_SECRETS,
    cookieDomain: env.COOKIE_DOMAIN || undefined,
    // Secure cookies everywhere except plain-http local development.
    secureCookies: new URL(origin).protocol === "https:",
    trustProxyHops: env.TRUST_PROXY_HOPS ?? 0,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    cognito: {
      region: env.COGNITO_REGION ?? "ap-northeast-1",
      userPoolId: env.COGNITO_USER_POOL_ID ?? "",
      clientId: env.COGNITO_CLIENT_ID ?? "",
      // The staff area's own app client: staff sign in through it, and the admin API takes only its tokens.
      // Required in production; optional in the type so that tools and tests naming only the member client compile.
      ...(env.COGNITO_STAFF_CLIENT_ID ? { staffClientId: env.COGNITO_STAFF_CLIENT_ID } : {}),
      // The server-only app client: the credential changes that Cognito allows only with the member's own token
      // (authenticator set-up, passkeys, the password change) use its tokens, which never leave the server. Required
      // in production; optional in the type for the same tools and tests.
      ...(env.COGNITO_SERVER_CLIENT_ID ? { serverClientId: env.COGNITO_SERVER_CLIENT_ID } : {}),
      endpoint: env.COGNITO_ENDPOINT,
    },
    adminGroup: env.ADMIN_GROUP,
    deviceLimit: env.DEVICE_LIMIT,
    directoryReconcile: {
      requestsPerSecond: env.DIRECTORY_RECONCILE_REQUESTS_PER_SECOND,
      intervalMinutes: env.DIRECTORY_RECONCILE_INTERVAL_MINUTES,
    },
    purgeIntervalMinutes: env.PURGE_INTERVAL_MINUTES,
    factorReconcile: {
      intervalMinutes: env.FACTOR_RECONCILE_INTERVAL_MINUTES,
      requestsPerSecond: env.FACTOR_RECONCILE_REQUESTS_PER_SECOND,
    },
    staffGroupCheckIntervalMs: env.STAFF_GROUP_CHECK_INTERVAL_SECONDS * 1000,
    adminDashboardMaxAgeMs: env.ADMIN_DASHBOARD_MAX_AGE_SECONDS * 1000,
    csvImport: {
      creationsPerSecond: env.CSV_IMPORT_CREATIONS_PER_SECOND,
      concurrency: env.CSV_IMPORT_CONCURRENCY,
      leaseMs: env.CSV_IMPORT_LEASE_SECONDS * 1000,
    },
    smtpUrl: env.SMTP_URL ?? "",
    mailFrom: env.MAIL_FROM,
    services: {
      data: { hosts: env.SERVICE_HOSTS_DATA, origin: env.SERVICE_ORIGIN_DATA },
      compe: { hosts: env.SERVICE_HOSTS_COMPE, origin: env.SERVICE_ORIGIN_COMPE },
      online: { hosts: env.SERVICE_HOSTS_ONLINE, origin: env.SERVICE_ORIGIN_ONLINE },
      shop: { hosts: env.SERVICE_HOSTS_SHOP, origin: env.SERVICE_ORIGIN_SHOP },
    } satisfies Record<SiblingService, { hosts: string[]; origin?: string }>,
    siblingEvents: Object.fromEntries(
      SIBLING_SERVICES.map((service) => [service, siblingEventSettingsOf(env, service)]),
    ) as Record<SiblingService, SiblingEventSettings>,
    logoutTokenSigningKeys: env.LOGOUT_TOKEN_SIGNING_KEYS,
    links: {
      dataTerms: env.DATA_TERMS_URL,
      corporate: env.CORPORATE_URL,
      officialSocial: env.OFFICIAL_SOCIAL_URL,
    },
    copyrightHolder: env.COPYRIGHT_HOLDER ?? null,
    rateLimits: {
      SIGN_IN_PER_ACCOUNT: env.RATE_LIMIT_SIGN_IN_PER_ACCOUNT,
      SIGN_IN_PER_ACCOUNT_AND_IP: env.RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_IP,
      SIGN_IN_PER_KNOWN_BROWSER: env.RATE_LIMIT_SIGN_IN_PER_KNOWN_BROWSER,
      SIGN_IN_PER_IP: env.RATE_LIMIT_SIGN_IN_PER_IP,
      SIGN_UP_PER_ACCOUNT: env.RATE_LIMIT_SIGN_UP_PER_ACCOUNT,
      SIGN_UP_PER_IP: env.RATE_LIMIT_SIGN_UP_PER_IP,
      CODE_CHECK_PER_ACCOUNT: env.RATE_LIMIT_CODE_CHECK_PER_ACCOUNT,
      CODE_CHECK_PER_IP: env.RATE_LIMIT_CODE_CHECK_PER_IP,
      CODE_RESEND_PER_ACCOUNT: env.RATE_LIMIT_CODE_RESEND_PER_ACCOUNT,
      CODE_RESEND_PER_IP: env.RATE_LIMIT_CODE_RESEND_PER_IP,
      FORGOT_PASSWORD_PER_ACCOUNT: env.RATE_LIMIT_FORGOT_PASSWORD_PER_ACCOUNT,
      FORGOT_PASSWORD_PER_IP: env.RATE_LIMIT_FORGOT_PASSWORD_PER_IP,
      EMAIL_CHECK_PER_MEMBER: env.RATE_LIMIT_EMAIL_CHECK_PER_MEMBER,
      EMAIL_CHECK_PER_IP: env.RATE_LIMIT_EMAIL_CHECK_PER_IP,
      PROFILE_UPDATE_PER_MEMBER: env.RATE_LIMIT_PROFILE_UPDATE_PER_MEMBER,
      PROFILE_UPDATE_PER_IP: env.RATE_LIMIT_PROFILE_UPDATE_PER_IP,
      EMAIL_CHANGE_PER_MEMBER: env.RATE_LIMIT_EMAIL_CHANGE_PER_MEMBER,
      EMAIL_CHANGE_PER_IP: env.RATE_LIMIT_EMAIL_CHANGE_PER_IP,
      MEMBER_REFRESH_PER_MEMBER: env.RATE_LIMIT_MEMBER_REFRESH_PER_MEMBER,
      MEMBER_REFRESH_PER_IP: env.RATE_LIMIT_MEMBER_REFRESH_PER_IP,
      DEVICE_REGISTRATION_PER_MEMBER: env.RATE_LIMIT_DEVICE_REGISTRATION_PER_MEMBER,
      DEVICE_REGISTRATION_PER_IP: env.RATE_LIMIT_DEVICE_REGISTRATION_PER_IP,
      STAFF_ACTION_PER_ADMIN: env.RATE_LIMIT_STAFF_ACTION_PER_ADMIN,
      STAFF_ACTION_PER_IP: env.RATE_LIMIT_STAFF_ACTION_PER_IP,
      DATA_COPY_PER_MEMBER: env.RATE_LIMIT_DATA_COPY_PER_MEMBER,
      DATA_COPY_PER_IP: env.RATE_LIMIT_DATA_COPY_PER_IP,
      PASSKEY_CHANGE_PER_MEMBER: env.RATE_LIMIT_PASSKEY_CHANGE_PER_MEMBER,
      PASSKEY_CHANGE_PER_IP: env.RATE_LIMIT_PASSKEY_CHANGE_PER_IP,
      TWO_STEP_CHANGE_PER_MEMBER: env.RATE_LIMIT_TWO_STEP_CHANGE_PER_MEMBER,
      TWO_STEP_CHANGE_PER_IP: env.RATE_LIMIT_TWO_STEP_CHANGE_PER_IP,
    } satisfies Record<RateLimitPolicyName, number | undefined>,
  };
}

/** Parses an environment, throwing a ConfigError that names every missing or invalid variable. */
export function parseConfig(environment: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const env = parsed.data;
  const problems: string[] = [];
  if (env.APP_MODE === "production") {
    for (const name of REQUIRED_IN_PRODUCTION) {
      const value = env[name];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) {
        problems.push(`${name} is required in production`);
      }
    }
    if (env.APP_ORIGIN && new URL(env.APP_ORIGIN).protocol !== "https:") {
      problems.push("APP_ORIGIN must be https in production: session cookies are Secure only over https");
    }
    if (env.TRUST_PROXY_HOPS === undefined) {
      problems.push(
        "TRUST_PROXY_HOPS is required in production: the number of proxies in front of the app (0 if none); " +
          "behind a load balancer, 0 makes every member share its IP and so its per-IP rate limits",
      );
    }
    if (env.COGNITO_ENDPOINT && isLoopback(env.COGNITO_ENDPOINT)) {
      problems.push("COGNITO_ENDPOINT points at a local stand-in; production talks to real Cognito");
    }
  } else if (env.PORT === 0 && !env.APP_ORIGIN) {
    problems.push("PORT=0 (any free port) needs APP_ORIGIN: links and the origin check name the port");
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    problems.push("METRICS_PORT must differ from PORT: the metrics are never served on the public port");
  }
  for (const [index, secret] of env.SESSION_SECRETS.entries()) {
    if (secret.length < MIN_SECRET_LENGTH) {
      problems.push(`SESSION_SECRETS entry ${index + 1} is shorter than ${MIN_SECRET_LENGTH} characters`);
    }
  }
  problems.push(...siblingEventProblems(env));
  if (problems.length > 0) throw new ConfigError(problems);
  return toConfig(env);
}

/**
 * True when a URL names this machine: localhost (and *.localhost), 127.0.0.0/8, ::1, the unspecified addresses
 * 0.0.0.0 and ::, and IPv4-mapped IPv6 forms of these. WHATWG URL parsing has already normalised the spellings
 * (`http://2130706433`, `http://0x7f.1`, `[::ffff:127.0.0.1]` → `[::ffff:7f00:1]`, `[0:0::1]` → `[::1]`).
 */
export function isLoopback(url: string): boolean {
  const hostname = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (hostname === "[::1]" || hostname === "[::]") return true;
  const ipv4 = ipv4OfMapped(hostname) ?? hostname;
  return ipv4.startsWith("127.") || ipv4 === "0.0.0.0";
}

/** `[::ffff:7f00:1]` → `127.0.0.1`; null for anything that is not an IPv4-mapped IPv6 address. */
function ipv4OfMapped(hostname: string): string | null {
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (!match) return null;
  const [high, low] = [parseInt(match[1]!, 16), parseInt(match[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}
