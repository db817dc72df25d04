import { expect, test } from "vitest";
import { bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import type { CookieJar } from "../../support/cookie-jar";
import { PageClient, expectResponse } from "../../support/page-client";
import { useTestServers } from "../../support/session-servers";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

// Sign-in alerts through the app's real doors: the production build (preview mode) over HTTP, its Cognito stand-in
// through the AWS SDK as a sibling service reaches it, and the mail as the dev mailbox files it. The alert's rules in
// detail, in-process: sign-in-alerts.db.test.ts.
const servers = useTestServers({ main: {} });

const ALERT_LINK = /\/sign-in-alert\/([A-Za-z0-9_-]{43})\//;

/** The device key an `id_device` cookie holds: React Router's signed cookie, base64 JSON before the signature. */
function deviceKeyIn(jar: CookieJar): string {
  const value = decodeURIComponent(jar.get("id_device") ?? "");
  const encoded = value.slice(0, value.lastIndexOf("."));
  return JSON.parse(Buffer.from(encoded, "base64").toString("utf8")) as string;
}

/** The alert link's path in the newest mail to an address; fails when no alert reaches it in time. */
async function alertLinkTo(client: PageClient, email: string): Promise<string> {
  const mail = await client.latestMailboxEntry(email, "mail", { timeoutMs: 10_000 });
  const token = ALERT_LINK.exec(mail)?.[1];
  if (!token) throw new Error(`the newest mail to ${email} holds no sign-in alert link`);
  return `/sign-in-alert/${token}/`;
}

test("a device key registered through the API does not silence a page sign-in's alert", async () => {
  const client = new PageClient(servers.main.process.url);
  const member = await createTestMember(servers.main.standInPort, "api-key-victim");
  // The member's own browser signs in first: their first sign-in ever, which mails nobody.
  await client.signIn(member);

  // Someone else's browser holds a device key we issued it (its own account's sign-in)...
  const stranger = await createTestMember(servers.main.standInPort, "api-key-stranger");
  const strangersBrowser = await client.signIn(stranger);
  const strangersKey = deviceKeyIn(strangersBrowser);
  // ...and registers that key for the member through the API, with tokens straight from Cognito's public client.
  const sdk = await connectToStandIn(servers.main.standInPort);
  try {
    const tokens = await bearerTokensFor(sdk, member.email, TEST_PASSWORD);
    const registered = await fetch(`${servers.main.process.url}/api/user-devices/${strangersKey}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ refreshToken: tokens.refreshToken }),
    });
    expect(registered.status).toBe(201);
  } finally {
    sdk.destroy();
  }

  // The page sign-in from that browser is a new browser's: the member is mailed.
  await client.signIn(member, strangersBrowser);
  expect(await alertLinkTo(client, member.email)).toMatch(ALERT_LINK);
});

test("the alert link's button answers 200 with the ended page; the spent link then answers 410", async () => {
  const client = new PageClient(servers.main.process.url);
  const member = await createTestMember(servers.main.standInPort, "alert-link");
  await client.signIn(member);
  await client.signIn(member);
  const link = await alertLinkTo(client, member.email);

  const offered = expectResponse(await client.get(link), "the link's page");
  expect(offered.status).toBe(200);
  expect(offered.body.toString("utf8")).not.toContain('data-testid="sign-in-alert-ended"');

  // A browser without JavaScript posts the form: the document answer is the action's page and status.
  const ended = expectResponse(await client.post(link, []), "the link's button");
  expect(ended.status).toBe(200);
  expect(ended.body.toString("utf8")).toContain('data-testid="sign-in-alert-ended"');

  const spent = expectResponse(await client.post(link, []), "the link's button again");
  expect(spent.status).toBe(410);
  expect(spent.body.toString("utf8")).toContain('data-testid="sign-in-alert-expired"');
});
