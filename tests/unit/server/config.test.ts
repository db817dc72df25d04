import { expect, test } from "vitest";
import { ConfigError, isLoopback, parseConfig, parseModeArgument } from "~/config.server";

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
    "COGNITO_STAFF_CLIENT_ID is required in production",
    "COGNITO_SERVER_CLIENT_ID is required in production",
    "SMTP_URL is required in production",
    "TRUST_PROXY_HOPS is required in production: the number of proxies in front of the app (0 if none); " +
      "behind a load balancer, 0 makes every member share its IP and so its per-IP rate limits",
  ]);
});

const PRODUCTION = {
  APP_MODE: "production",
  APP_ORIGIN: "https://id.example.jp",
  SESSION_SECRETS: SECRET,
  DATABASE_URL: "postgres://app@db.internal/app",
  COGNITO_REGION: "ap-northeast-1",
  COGNITO_USER_POOL_ID: "ap-northeast-1_abc",
  COGNITO_CLIENT_ID: "client",
  COGNITO_STAFF_CLIENT_ID: "staff-client",
  COGNITO_SERVER_CLIENT_ID: "server-client",
  SMTP_URL: "smtp://mail.internal:25",
  TRUST_PROXY_HOPS: "0",
};

test("production with everything set parses, and refuses a loopback Cognito endpoint", () => {
  const env = {
    ...PRODUCTION,
    TRUST_PROXY_HOPS: "1",
    COOKIE_DOMAIN: ".example.jp",
    SERVICE_HOSTS_DATA: "data.example.jp, www.data.example.jp",
  };
  const config = parseConfig(env);
  expect(config.isProduction).toBe(true);
  expect(config.secureCookies).toBe(true);
  expect(config.cookieDomain).toBe(".example.jp");
  expect(config.services.data.hosts).toEqual(["data.example.jp", "www.data.example.jp"]);
  expect(config.trustProxyHops).toBe(1);
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

test("development defaults need no variables, use plain-http cookies and name the address they listen on", () => {
  const config = parseConfig({});
  expect(config.mode).toBe("dev");
  expect(config.devToolsEnabled).toBe(true);
  expect(config.secureCookies).toBe(false);
  // The banner announces this origin; links in mail and the origin check use it too.
  expect(config.origin).toBe("http://127.0.0.1:3000");
  expect(config.trustProxyHops).toBe(0);
  expect(config.databaseUrl).toBeUndefined();
});

test("the default origin follows HOST and PORT, and an empty APP_ORIGIN counts as unset", () => {
  expect(parseConfig({ APP_MODE: "preview", HOST: "0.0.0.0", PORT: "4000" }).origin).toBe("http://localhost:4000");
  expect(parseConfig({ APP_MODE: "preview", HOST: "::1", PORT: "4000" }).origin).toBe("http://[::1]:4000");
  expect(parseConfig({ APP_MODE: "preview", APP_ORIGIN: "", PORT: "4000" }).origin).toBe("http://127.0.0.1:4000");
  expect(parseConfig({ APP_MODE: "preview", APP_ORIGIN: "http://localhost:4000/" }).origin).toBe(
    "http://localhost:4000",
  );
  expect(problemsOf({ APP_MODE: "preview", PORT: "0" })).toEqual([
    "PORT=0 (any free port) needs APP_ORIGIN: links and the origin check name the port",
  ]);
});

test("production refuses a plain-http origin", () => {
  expect(problemsOf(PRODUCTION)).toEqual([]);
  expect(problemsOf({ ...PRODUCTION, APP_ORIGIN: "http://id.example.jp" })).toEqual([
    "APP_ORIGIN must be https in production: session cookies are Secure only over https",
  ]);
});

test("production needs TRUST_PROXY_HOPS said out loud, even when it is 0", () => {
  expect(parseConfig(PRODUCTION).trustProxyHops).toBe(0);
  const { TRUST_PROXY_HOPS: _unset, ...withoutHops } = PRODUCTION;
  for (const env of [withoutHops, { ...PRODUCTION, TRUST_PROXY_HOPS: "" }]) {
    expect(problemsOf(env)).toEqual([expect.stringMatching(/^TRUST_PROXY_HOPS is required in production/)]);
  }
  expect(problemsOf({ ...PRODUCTION, TRUST_PROXY_HOPS: "-1" })[0]).toMatch(/^TRUST_PROXY_HOPS:/);
});

test.each([
  "http://localhost:9229",
  "http://LOCALHOST.:9229",
  "http://cognito.localhost:9229",
  "http://127.0.0.1:9229",
  "http://127.1.2.3",
  "http://2130706433",
  "http://0x7f.1",
  "http://0.0.0.0:9229",
  "http://0:9229",
  "http://[::1]:9229",
  "http://[0:0:0:0:0:0:0:1]",
  "http://[::]:9229",
  "http://[::ffff:127.0.0.1]:9229",
  "http://[::ffff:7f00:1]:9229",
  "http://[::ffff:0.0.0.0]",
])("production refuses a Cognito endpoint on this machine: %s", (endpoint) => {
  expect(isLoopback(endpoint)).toBe(true);
  expect(problemsOf({ ...PRODUCTION, COGNITO_ENDPOINT: endpoint })).toEqual([
    "COGNITO_ENDPOINT points at a local stand-in; production talks to real Cognito",
  ]);
});

test.each([
  "https://cognito-idp.ap-northeast-1.amazonaws.com",
  "https://10.0.0.1",
  "http://[::ffff:10.0.0.1]",
  "http://[2001:db8::1]",
  "https://localhost.example.jp",
])("a Cognito endpoint elsewhere is not loopback: %s", (endpoint) => {
  expect(isLoopback(endpoint)).toBe(false);
});

test("the server's mode must be named, and named right", () => {
  expect(parseModeArgument(["--mode=production"])).toBe("production");
  expect(parseModeArgument(["--mode", "preview"])).toBe("preview");
  expect(parseModeArgument(["--mode=dev"])).toBe("dev");
  const refusal = (args: string[]) => {
    try {
      parseModeArgument(args);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.join("\n");
      throw error;
    }
    return "accepted";
  };
  expect(refusal([])).toBe("--mode is required: one of dev, preview, production");
  expect(refusal(["--mode=prod"])).toBe("--mode=prod is not a mode: use one of dev, preview, production");
  expect(refusal(["--mode=Production"])).toMatch(/is not a mode/);
  expect(refusal(["--mode="])).toMatch(/is not a mode/);
  expect(refusal(["--mdoe=production"])).toMatch(/Unknown option '--mdoe'.*--mode=<dev\|preview\|production>/);
  expect(refusal(["production"])).toMatch(/--mode=<dev\|preview\|production>/);
});

test("the directory reconcile job paces at 5 ListUsers requests a second every 6 hours unless told, and at most 25", () => {
  expect(parseConfig({}).directoryReconcile).toEqual({ requestsPerSecond: 5, intervalMinutes: 360 });
  expect(
    parseConfig({ DIRECTORY_RECONCILE_REQUESTS_PER_SECOND: "20", DIRECTORY_RECONCILE_INTERVAL_MINUTES: "0" })
      .directoryReconcile,
  ).toEqual({ requestsPerSecond: 20, intervalMinutes: 0 });
  const problems = problemsOf({
    DIRECTORY_RECONCILE_REQUESTS_PER_SECOND: "30",
    DIRECTORY_RECONCILE_INTERVAL_MINUTES: "-1",
  });
  expect(problems.some((problem) => problem.startsWith("DIRECTORY_RECONCILE_REQUESTS_PER_SECOND:"))).toBe(true);
  expect(problems.some((problem) => problem.startsWith("DIRECTORY_RECONCILE_INTERVAL_MINUTES:"))).toBe(true);
});

test("the footer's copyright holder is COPYRIGHT_HOLDER, trimmed; unset or empty leaves the locales' placeholder", () => {
  expect(parseConfig({}).copyrightHolder).toBeNull();
  expect(parseConfig({ COPYRIGHT_HOLDER: "" }).copyrightHolder).toBeNull();
  expect(parseConfig({ COPYRIGHT_HOLDER: " Shinkenchiku-sha Co., Ltd. " }).copyrightHolder).toBe(
    "Shinkenchiku-sha Co., Ltd.",
  );
  expect(
    problemsOf({ COPYRIGHT_HOLDER: "x".repeat(201) }).some((problem) => problem.startsWith("COPYRIGHT_HOLDER:")),
  ).toBe(true);
});

test("metrics are off unless METRICS_PORT names a port, which must not be the public one", () => {
  expect(parseConfig({}).metricsPort).toBeUndefined();
  expect(parseConfig({ METRICS_PORT: "" }).metricsPort).toBeUndefined();
  expect(parseConfig({ ...PRODUCTION, METRICS_PORT: "9464" }).metricsPort).toBe(9464);
  expect(problemsOf({ PORT: "8080", METRICS_PORT: "8080" })).toEqual([
    "METRICS_PORT must differ from PORT: the metrics are never served on the public port",
  ]);
  expect(problemsOf({ METRICS_PORT: "0" })).toEqual([expect.stringMatching(/^METRICS_PORT: /)]);
});
