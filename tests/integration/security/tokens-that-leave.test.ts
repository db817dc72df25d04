import { InitiateAuthCommand } from "@aws-sdk/client-cognito-identity-provider";
import { expect, test } from "vitest";
import { createNamedMember } from "../../support/admin-members";
import { bearerTokensOf } from "../../support/bearer-tokens";
import { jarOf } from "../../support/cookie-jar";
import { MISSING_SCOPE, SELF_SERVICE_OPERATIONS, outcomeOf } from "../../support/self-service-operations";
import { sdk, useTestServers } from "../../support/session-servers";
import { get, signedIn, staffSignedIn } from "../../support/session-http";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";

// No token we hand out changes a credential at Cognito (docs/decisions.md, "Tokens that leave the server"), from
// outside: the production build in its own process, and this file as whoever got hold of a token we hand out, trying
// every self-service operation Cognito has with it, straight at Cognito (the stand-in, whose refusal
// tests/contract/token-scopes.test.ts pins to the AWS documentation). Every one must be refused for the token's scope,
// and the member's account must be as it was.
const servers = useTestServers({ app: {} });

/** The access token inside a signed cookie's value (React Router's: base64 JSON, a dot, the signature). */
function accessTokenInCookie(cookieHeader: string, name: string): string {
  const value = jarOf(cookieHeader).get(name);
  if (!value) throw new Error(`no ${name} cookie`);
  const signed = decodeURIComponent(value);
  const payload = Buffer.from(signed.slice(0, signed.lastIndexOf(".")), "base64").toString("latin1");
  return (JSON.parse(decodeURIComponent(escape(payload))) as { at: string }).at;
}

async function refusedEverywhere(token: string, what: string): Promise<void> {
  const { cognito } = await sdk(servers.app);
  for (const operation of SELF_SERVICE_OPERATIONS) {
    expect(await outcomeOf(operation.call(cognito, token)), `${what}: ${operation.name}`).toEqual(MISSING_SCOPE);
  }
}

test("no token a browser, the shared cookie or a sibling gets from us can change anything at Cognito", async () => {
  const member = await createNamedMember(servers.app.standInPort, {
    email: `leave-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  const password = member.password;
  const { cognito, clientId } = await sdk(servers.app);

  // The page sign-in's shared cookie, as every sibling host (or a copied cookie) has it.
  const cookie = await signedIn(servers.app, { email: member.email, password });
  await refusedEverywhere(accessTokenInCookie(cookie, "id_session"), "id_session");

  // A sibling's own sign-in with the public client, the member API's bearer token.
  const sibling = bearerTokensOf(
    (
      await cognito.send(
        new InitiateAuthCommand({
          ClientId: clientId,
          AuthFlow: "USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: member.email, PASSWORD: password },
        }),
      )
    ).AuthenticationResult,
  );
  await refusedEverywhere(sibling.accessToken, "sibling sign-in");

  // The device registration takes the sibling's refresh token; what the sibling renews with it after.
  const registered = await fetch(`${servers.app.process.url}/api/user-devices/leave-device-key/`, {
    method: "POST",
    headers: { Authorization: `Bearer ${sibling.accessToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ refreshToken: sibling.refreshToken }),
  });
  expect(registered.status).toBe(201);
  const renewed = bearerTokensOf(
    (
      await cognito.send(
        new InitiateAuthCommand({
          ClientId: clientId,
          AuthFlow: "REFRESH_TOKEN_AUTH",
          AuthParameters: { REFRESH_TOKEN: sibling.refreshToken },
        }),
      )
    ).AuthenticationResult,
  );
  await refusedEverywhere(renewed.accessToken, "refreshed sibling token");

  // Nothing changed: the member's page still opens with the cookie, and the password still signs in.
  expect((await get(servers.app, "/my/profile/", cookie)).status).toBe(200);
  await expect(signedIn(servers.app, { email: member.email, password })).resolves.toContain("id_session=");
});

test("staff tokens, the staff session's and a staff tool's, can change nothing at Cognito either", async () => {
  const staff = await createApiStaff({ url: servers.app.process.url, standInPort: servers.app.standInPort }, "leave");
  const staffCookie = await staffSignedIn(servers.app, staff);
  await refusedEverywhere(accessTokenInCookie(staffCookie, "id_staff_session"), "id_staff_session");
  await refusedEverywhere((await staffTokensFor(await sdk(servers.app), staff)).accessToken, "staff tool");
});
