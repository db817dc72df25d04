import {
  AdminInitiateAuthCommand,
  DescribeUserPoolCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { createTransport } from "nodemailer";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { SIBLING_SERVICES, parseConfig } from "~/config.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import type { StandIns } from "~/server/start-server";
import { joinRunningStack, startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";

// The real embedded stack: cognito-local in its own process over HTTP through the AWS SDK, and a real SMTP capture.
const temp = makeTempDir("embedded");
let stack: StandIns;

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
});

afterAll(async () => {
  await stack?.stop();
  temp.remove();
});

function cognito() {
  return createCognitoClient(cognitoConfigOf(stack));
}

test("the pool is provisioned with the password policy, and the development admin signs in as an admin", async () => {
  const client = cognito();
  const UserPoolId = stack.env.COGNITO_USER_POOL_ID!;
  const pool = await client.send(new DescribeUserPoolCommand({ UserPoolId }));
  expect(pool.UserPool?.Policies?.PasswordPolicy?.MinimumLength).toBe(8);

  const auth = await client.send(
    new AdminInitiateAuthCommand({
      UserPoolId,
      ClientId: stack.env.COGNITO_CLIENT_ID!,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: stack.admin!.email, PASSWORD: stack.admin!.password },
    }),
  );
  // The app takes admin rights from the token's cognito:groups claim (and the directory's reading of the group).
  const claims = decodeJwt(auth.AuthenticationResult?.AccessToken ?? "");
  expect(claims["cognito:groups"]).toContain("admin");
  const jwks = await fetch(`${stack.env.COGNITO_ENDPOINT}/${UserPoolId}/.well-known/jwks.json`);
  expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
});

test("starting again on the same data directory reuses the pool, client and admin", async () => {
  const first = stack;
  await stack.stop();
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  expect(stack.env.COGNITO_USER_POOL_ID).toBe(first.env.COGNITO_USER_POOL_ID);
  expect(stack.env.COGNITO_CLIENT_ID).toBe(first.env.COGNITO_CLIENT_ID);
  expect(stack.env.SESSION_SECRETS).toBe(first.env.SESSION_SECRETS);
  // The siblings keep their secrets and the logout tokens' key: a service set up against the last start still verifies.
  for (const name of ["SERVICE_WEBHOOK_SECRETS_DATA", "SERVICE_FEED_TOKENS_SHOP", "LOGOUT_TOKEN_SIGNING_KEYS"]) {
    expect(stack.env[name]).toBe(first.env[name]);
  }
  expect(stack.admin).toEqual(first.admin);
});

test("every sibling service is pointed at the event capture with its own secrets, which the configuration accepts", () => {
  const config = parseConfig({ ...stack.env, APP_MODE: "preview" });
  const secrets = new Set<string>();
  for (const service of SIBLING_SERVICES) {
    const settings = config.siblingEvents[service];
    expect(settings.webhook?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${service}/webhooks$`));
    expect(settings.logoutUri).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${service}/logout$`));
    expect(settings.feedTokens[0]!.length).toBeGreaterThanOrEqual(32);
    for (const secret of [...settings.webhook!.secrets, ...settings.feedTokens]) secrets.add(secret);
  }
  expect(secrets.size).toBe(SIBLING_SERVICES.length * 2);
  const [signingKey] = JSON.parse(config.logoutTokenSigningKeys!) as Record<string, string>[];
  expect(signingKey).toMatchObject({
    kty: "EC",
    crv: "P-256",
    alg: "ES256",
    kid: expect.any(String),
    d: expect.any(String),
  });
});

test("the stack's event capture verifies a webhook signed with the service's secret and refuses a badly signed one", async () => {
  const post = (id: string, secret: string) => {
    const body = JSON.stringify({ id, type: "member.updated", sub: "member-sub", sequence: 1, data: {} });
    return fetch(stack.env.SERVICE_WEBHOOK_URL_ONLINE!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, new Date(), body),
      },
      body,
    });
  };
  const signed = randomUUID();
  expect((await post(signed, stack.env.SERVICE_WEBHOOK_SECRETS_ONLINE!)).status).toBe(200);
  const forged = randomUUID();
  expect((await post(forged, stack.env.SERVICE_WEBHOOK_SECRETS_DATA!)).status).toBe(400);
  const deliveries = await stack.events.deliveries();
  expect(deliveries.slice(0, 2)).toMatchObject([
    { service: "online", eventId: forged, verdict: "rejected" },
    { service: "online", eventId: signed, verdict: "verified" },
  ]);
});

test("codes the stand-in sends land in the mailbox", async () => {
  const email = `code-${Date.now()}@example.jp`;
  await cognito().send(
    new SignUpCommand({ ClientId: stack.env.COGNITO_CLIENT_ID!, Username: email, Password: "correct-horse-1" }),
  );
  const entries = await listMailboxEntries(mailboxDirectory(temp.dir));
  const codeEntry = entries.find((entry) => entry.to.includes(email));
  expect(codeEntry?.kind).toBe("code");
  expect(codeEntry?.code).toMatch(/^\d{6}$/);
});

test("mail sent over SMTP is captured, newest first", async () => {
  const transport = createTransport(stack.env.SMTP_URL);
  for (const subject of ["first", "second"]) {
    await transport.sendMail({
      from: "id@example.jp",
      to: "member@example.jp",
      subject,
      text: `本文 ${subject}`,
    });
  }
  transport.close();
  const mails = (await listMailboxEntries(mailboxDirectory(temp.dir))).filter((entry) => entry.kind === "mail");
  expect(mails.map((mail) => mail.subject).slice(0, 2)).toEqual(["second", "first"]);
  expect(mails[0]).toMatchObject({ to: ["member@example.jp"], text: expect.stringContaining("本文 second") });
});

test("a second instance joins the running stand-ins with all their settings and a shared PostgreSQL, or refuses", async () => {
  const settings = {
    COGNITO_ENDPOINT: stack.env.COGNITO_ENDPOINT,
    COGNITO_USER_POOL_ID: stack.env.COGNITO_USER_POOL_ID,
    COGNITO_CLIENT_ID: stack.env.COGNITO_CLIENT_ID,
    COGNITO_STAFF_CLIENT_ID: stack.env.COGNITO_STAFF_CLIENT_ID,
    COGNITO_SERVER_CLIENT_ID: stack.env.COGNITO_SERVER_CLIENT_ID,
    SMTP_URL: stack.env.SMTP_URL,
  };
  expect(await joinRunningStack({}, temp.dir)).toBeNull();
  const partial = await joinRunningStack({ COGNITO_ENDPOINT: settings.COGNITO_ENDPOINT }, temp.dir);
  expect(partial && "problems" in partial && partial.problems).toEqual([
    expect.stringContaining("COGNITO_USER_POOL_ID is not set"),
    expect.stringContaining("COGNITO_CLIENT_ID is not set"),
    expect.stringContaining("COGNITO_STAFF_CLIENT_ID is not set"),
    expect.stringContaining("COGNITO_SERVER_CLIENT_ID is not set"),
    expect.stringContaining("SMTP_URL is not set"),
    expect.stringContaining("DATABASE_URL is not set"),
  ]);
  const joined = await joinRunningStack({ ...settings, DATABASE_URL: "postgres://db.internal/app" }, temp.dir);
  if (!joined || "problems" in joined) throw new Error(`did not join: ${JSON.stringify(joined)}`);
  // The data directory's session secret, development admin and event capture: sessions, the admin and the siblings'
  // settings (the running receiver, its secrets) are the same on both instances.
  const namedByTheJoin = (name: string) => name.startsWith("COGNITO_") || name === "SMTP_URL";
  expect(joined.env).toEqual(Object.fromEntries(Object.entries(stack.env).filter(([name]) => !namedByTheJoin(name))));
  expect(joined.admin).toEqual(stack.admin);
  expect(await joined.events.deliveries()).toEqual(await stack.events.deliveries());
  await joined.stop();
  // Another data directory names no running receiver: no sibling settings but the environment's.
  const elsewhere = makeTempDir("embedded-join");
  const apart = await joinRunningStack({ ...settings, DATABASE_URL: "postgres://db.internal/app" }, elsewhere.dir);
  elsewhere.remove();
  expect(apart && !("problems" in apart) && Object.keys(apart.env)).toEqual(["SESSION_SECRETS"]);
  expect(
    (await fetch(`${stack.env.COGNITO_ENDPOINT}/${stack.env.COGNITO_USER_POOL_ID}/.well-known/jwks.json`)).ok,
  ).toBe(true);
});
