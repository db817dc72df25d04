import { expect, test } from "vitest";
import { ConfigError, parseConfig } from "~/config.server";

const SECRET = "s".repeat(32);

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

test("production names every missing variable", () => {
  const problems = problemsOf({ APP_MODE: "production" });
  expect(problems).toEqual([
    "APP_ORIGIN is required in production",
    "SESSION_SECRETS is required in production",
    "DATABASE_URL is required in production",
    "COGNITO_REGION is required in production",
    "COGNITO_USER_POOL_ID is required in production",
    "COGNITO_CLIENT_ID is required in production",
    "SMTP_URL is required in production",
  ]);
});

test("production with everything set parses, and refuses a loopback Cognito endpoint", () => {
  const env = {
    APP_MODE: "production",
    APP_ORIGIN: "https://id.example.jp",
    SESSION_SECRETS: SECRET,
    DATABASE_URL: "postgres://app@db.internal/app",
    COGNITO_REGION: "ap-northeast-1",
    COGNITO_USER_POOL_ID: "ap-northeast-1_abc",
    COGNITO_CLIENT_ID: "client",
    SMTP_URL: "smtp://mail.internal:25",
    COOKIE_DOMAIN: ".example.jp",
    SERVICE_HOSTS_DATA: "data.example.jp, www.data.example.jp",
  };
  const config = parseConfig(env);
  expect(config.isProduction).toBe(true);
  expect(config.secureCookies).toBe(true);
  expect(config.cookieDomain).toBe(".example.jp");
  expect(config.services.data.hosts).toEqual(["data.example.jp", "www.data.example.jp"]);
  expect(problemsOf({ ...env, COGNITO_ENDPOINT: "http://127.0.0.1:9229" })).toEqual([
    "COGNITO_ENDPOINT points at a local stand-in; production talks to real Cognito",
  ]);
});

test("invalid values are reported by variable name", () => {
  const problems = problemsOf({ PORT: "not-a-port", DEVICE_LIMIT: "0", APP_ORIGIN: "nope" });
  expect(problems.some((problem) => problem.startsWith("PORT:"))).toBe(true);
  expect(problems.some((problem) => problem.startsWith("DEVICE_LIMIT:"))).toBe(true);
  expect(problems.some((problem) => problem.startsWith("APP_ORIGIN:"))).toBe(true);
});

test("short session secrets are refused", () => {
  expect(problemsOf({ SESSION_SECRETS: `${SECRET},short` })).toEqual([
    "SESSION_SECRETS entry 2 is shorter than 32 characters",
  ]);
});

test("development defaults need no variables and use plain-http cookies", () => {
  const config = parseConfig({});
  expect(config.mode).toBe("dev");
  expect(config.devToolsEnabled).toBe(true);
  expect(config.secureCookies).toBe(false);
  expect(config.origin).toBe("http://localhost:3000");
  expect(config.databaseUrl).toBeUndefined();
});
