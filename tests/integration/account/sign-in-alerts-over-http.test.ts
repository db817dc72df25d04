import { expect, test } from "vitest";
import { PageClient, expectResponse } from "../../support/page-client";
import { useTestServers } from "../../support/session-servers";
import { createTestMember } from "../../support/test-members";

// Sign-in alerts through the app's real doors: the production build (preview mode) over HTTP, its Cognito stand-in
// through the AWS SDK as a sibling service reaches it, and the mail as the dev mailbox files it. The alert's rules in
// detail, in-process: sign-in-alerts.db.test.ts.
const servers = useTestServers({ main: {} });

const ALERT_LINK = /\/sign-in-alert\/([A-Za-z0-9_-]{43})\//;

/** The alert link's path in the newest mail to an address; fails when no alert reaches it in time. */
async function alertLinkTo(client: PageClient, email: string): Promise<string> {
  const mail = await client.latestMailboxEntry(email, "mail", { timeoutMs: 10_000 });
  const token = ALERT_LINK.exec(mail)?.[1];
  if (!token) throw new Error(`the newest mail to ${email} holds no sign-in alert link`);
  return `/sign-in-alert/${token}/`;
}

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
