import { DescribeUserPoolClientCommand, InitiateAuthCommand } from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { cookieHeader } from "../../support/cookie-jar";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { STAND_IN_CLIENT_NAME } from "../../support/stand-ins/provision-cognito";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { makeTempDir } from "../../support/temp-dir";
import { createTestMember } from "../../support/test-members";

/**
 * Preview as a newcomer runs it, with no APP_ORIGIN: the URL the banner announces is the origin
 * the app works on (posts from it are accepted, mailed links name it), and the banner names the stand-in's pool and
 * app client, with which a sibling service's engineer gets a member's token.
 */

let server: ServerProcess;
const data = makeTempDir("preview-origin");

beforeAll(async () => {
  // An empty APP_ORIGIN is unset: the test support otherwise names localhost for every server it starts.
  server = await startServerProcess("preview", {
    APP_ORIGIN: "",
    DATA_DIR: data.dir,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  data.remove();
});

const announced = () => {
  const url = /ready at (\S+)/.exec(server.stdout())?.[1];
  if (!url) throw new Error(`No URL in the banner:\n${server.stdout()}`);
  return new URL(url).origin;
};

/**
 * A form post from a page of `origin`, naming it the way every browser does (Origin); without Sec-Fetch-Site, which
 * older browsers do not send, so that the app's origin check compares the Origin with its own.
 */
function post(path: string, fields: Record<string, string>, cookie = "", origin = announced()) {
  return fetch(`${announced()}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: origin,
      "Accept-Language": "ja",
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: new URLSearchParams(fields),
  });
}

test("the banner announces the address the server listens on", () => {
  expect(`${announced()}/`).toBe(`${server.url}/`);
  expect(server.stdout()).toContain(`Captured mail and codes: ${announced()}/__dev/mailbox/`);
});

test("a sign-in posted from the announced origin is accepted, and a mailed link names that origin", async () => {
  const member = await createTestMember(server.standInPort, "announced");
  // The check is live: the same post from the other name of this machine is another origin.
  const elsewhere = `http://localhost:${new URL(announced()).port}`;
  expect((await post("/auth/sign-in/", { intent: "sign-in", ...member }, "", elsewhere)).status).toBe(403);

  const signIn = await post("/auth/sign-in/", { intent: "sign-in", ...member });
  expect(signIn.status).toBe(302);
  const cookie = cookieHeader(signIn);
  expect(cookie).toContain("id_session=");

  const newEmail = `moved-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const change = await post("/my/email/edit/", { email: newEmail }, cookie);
  expect(change.status).toBe(302);
  let link = "";
  await expect
    .poll(
      async () => {
        const mail = (await listMailboxEntries(mailboxDirectory(data.dir))).find(
          (entry) => entry.kind === "mail" && entry.to.includes(newEmail),
        );
        link = /https?:\/\/\S+\/email-update\/\S+\//.exec(mail?.text ?? "")?.[0] ?? "";
        return link;
      },
      { timeout: 10_000 },
    )
    .not.toBe("");
  expect(new URL(link).origin).toBe(announced());
});

test("the banner names the stand-in's user pool and app client, enough for a sibling service to get a token", async () => {
  const ids = /Cognito user pool id: (\S+), app client id: (\S+) /.exec(server.stdout());
  expect(ids).not.toBeNull();
  const [, UserPoolId, ClientId] = ids as unknown as [string, string, string];
  // Only what the banner says: the stand-in's endpoint, the pool id and the client id.
  const endpoint = /Cognito stand-in \(AWS SDK endpoint\): (\S+)/.exec(server.stdout())![1]!;
  const cognito = createCognitoClient({
    region: "ap-northeast-1",
    endpoint,
    userPoolId: UserPoolId,
    clientId: ClientId,
  });
  try {
    const client = await cognito.send(new DescribeUserPoolClientCommand({ UserPoolId, ClientId }));
    expect(client.UserPoolClient?.ClientName).toBe(STAND_IN_CLIENT_NAME);
    const member = await createTestMember(server.standInPort, "sibling");
    const auth = await cognito.send(
      new InitiateAuthCommand({
        ClientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: member.email, PASSWORD: member.password },
      }),
    );
    expect(auth.AuthenticationResult?.AccessToken).toBeTruthy();
  } finally {
    cognito.destroy();
  }
});
