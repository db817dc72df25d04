import {
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  SetUserMFAPreferenceCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { securityEvents } from "~db/schema";
import { ErrorEnvelopeSchema } from "~/api/contract";
import { checkStaffGroup } from "~/domain/directory/staff-group-check.server";
import { beginStaffSignIn } from "~/domain/sessions/staff-sessions.server";
import * as users from "~/routes/api/admin/users";
import { nextAuthenticatorCode } from "../../support/admin-members";
import { type StandInSdk, bearerTokensOf, connectToStandIn } from "../../support/bearer-tokens";
import { routeCalls } from "../../support/route-calls";
import { secondAfter, staffTokensFor } from "../../support/staff-api-access";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { useTestServices } from "../../support/test-services";

// Finding 2 of the fourth review: a staff member's authenticator switched off at Cognito while our record says on.
// The member-cookie token that did it then can no longer (no self-service scope); if anything else does, the staff
// group check switches it on again and every staff token signed in while it was off is refused by the admin API, and
// the staff sign-in asks for the code again. Real parts: the stand-in over HTTP, PGlite or PostgreSQL; the admin
// API's route module called as the HTTP server calls it; the staff group read as the job reads it.
const ORIGIN = "http://localhost:3998";
const app = useTestServices({ label: "staff-second-factor", origin: ORIGIN, ownDatabase: true });
const calls = routeCalls(ORIGIN, () => app.services);
let sdk: StandInSdk;

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});
afterAll(() => sdk?.destroy());

const checkGroup = () => checkStaffGroup(app.services, { staffGroup: app.services.config.adminGroup, intervalMs: 1 });

async function adminApi(token: string): Promise<number | string> {
  const request = new Request(`${ORIGIN}/api/admin/users`, { headers: { Authorization: `Bearer ${token}` } });
  const response = await users.loader({ request, context: await calls.context(request, null), params: {} } as never);
  if (response.status === 200) return 200;
  return ErrorEnvelopeSchema.parse(await response.json()).error.code;
}

test("a staff member's second factor switched off at Cognito does not open the admin API to the password alone", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-2sv");
  await checkGroup();
  expect(await adminApi((await staffTokensFor(sdk, staff)).accessToken)).toBe(200);

  // The review's way in: the member cookie's token (the members' client, password and code) switching TOTP off at
  // Cognito. Refused now.
  const challenge = await sdk.cognito.send(
    new InitiateAuthCommand({
      ClientId: sdk.clientId,
      AuthFlow: "USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: staff.email, PASSWORD: staff.password },
    }),
  );
  const answered = await sdk.cognito.send(
    new RespondToAuthChallengeCommand({
      ClientId: sdk.clientId,
      ChallengeName: "SOFTWARE_TOKEN_MFA",
      Session: challenge.Session,
      ChallengeResponses: {
        USERNAME: challenge.ChallengeParameters?.USER_ID_FOR_SRP ?? staff.email,
        SOFTWARE_TOKEN_MFA_CODE: await nextAuthenticatorCode(staff),
      },
    }),
  );
  const memberToken = bearerTokensOf(answered.AuthenticationResult).accessToken;
  const refused = await sdk.cognito
    .send(
      new SetUserMFAPreferenceCommand({
        AccessToken: memberToken,
        SoftwareTokenMfaSettings: { Enabled: false, PreferredMfa: false },
      }),
    )
    .catch((error: Error) => error.name);
  expect(refused).toBe("NotAuthorizedException");

  // Any other way (an operator's console, a token from before the trigger): the password alone gets staff tokens.
  await app.services.identity.setSoftwareTokenPreferenceOf({ username: staff.sub, enabled: false });
  await secondAfter(Date.now());
  const passwordOnly = (await staffTokensFor(sdk, { email: staff.email, password: staff.password })).accessToken;
  // The next staff group check finds it off, switches it on again, and from then the app counts as turned on anew:
  // the token signed in while it was off is refused.
  await secondAfter(Date.now());
  await checkGroup();
  expect((await app.services.identity.getUser(staff.sub)).mfaMethods).toEqual(["SOFTWARE_TOKEN_MFA"]);
  expect(await adminApi(passwordOnly)).toBe("authenticator_app_required");
  const events = await app.db.select().from(securityEvents).where(eq(securityEvents.sub, staff.sub));
  expect(events.map((event) => event.kind)).toContain("second-factor-restored");

  // The staff sign-in asks for the code again; with it, the admin API opens.
  const started = await beginStaffSignIn(app.services, {
    email: staff.email,
    password: staff.password,
    userAgent: null,
    clientIp: "127.0.0.1",
    locale: "ja",
  });
  expect(started.kind).toBe("codeRequired");
  await secondAfter(Date.now());
  expect(await adminApi((await staffTokensFor(sdk, staff)).accessToken)).toBe(200);
  // Three sign-ins with codes: the third needs the authenticator's next time step (a step is taken once), up to 30 s
  // of waiting for the clock, as a member would wait for the app's next code.
}, 90_000);
