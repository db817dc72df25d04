import {
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  InitiateAuthCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import {
  type StaffTestMember,
  type StaffWithAuthenticator,
  createStaffAdmin,
  firstAuthenticatorCode,
  nextAuthenticatorCode,
} from "./admin-members";
import { type BearerTokens, type StandInSdk, bearerTokensOf, connectToStandIn } from "./bearer-tokens";
import { PageClient, expectResponse, withSetCookies } from "./page-client";
import { sendRawRequest } from "./raw-http";

/**
 * Staff as the admin API takes them (app/api/api-handler.server.ts): the authenticator app turned on through the
 * app's own security page, so that both Cognito and the app's record know it, and tokens of the staff app client
 * from a sign-in made after that, with the app's code. Playwright's specs use it too, so it imports nothing of the
 * app's domain (which loads the locale files, and Playwright cannot import JSON modules).
 */

/** An app server and its stand-in: a ServerProcess, or the e2e suite's (playwright.config.ts). */
export interface AppUnderTest {
  url: string;
  standInPort: number;
  /** Its APP_ORIGIN, when that is not http://localhost on its port. */
  origin?: string;
}

/**
 * Waits into the second after `time`: a token's `auth_time` has whole seconds, so the admin API takes only the
 * sign-ins of a later second than the one the authenticator app was turned on in.
 */
export async function secondAfter(time: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (time % 1000) + 1));
}

/** Whom a staff-client sign-in is for: the authenticator's secret when they have the app. */
type SignInDetails = { email: string; password: string } | StaffWithAuthenticator;

const AUTHENTICATOR_PAGE = "/my/security/authenticator/";

/** An admin of its own with the authenticator app turned on through the app's pages (turnOnAuthenticatorApp). */
export async function createApiStaff(app: AppUnderTest, label: string): Promise<StaffWithAuthenticator> {
  return turnOnAuthenticatorApp(app, await createStaffAdmin(app.standInPort, label));
}

/**
 * Turns the authenticator app on as a member does: signed in on the app's pages, "Set up" on the authenticator
 * page, the key read from the page, the first code entered (firstAuthenticatorCode).
 */
export async function turnOnAuthenticatorApp(
  app: AppUnderTest,
  staff: StaffTestMember,
): Promise<StaffWithAuthenticator> {
  const client = new PageClient(app.url, app.origin);
  const signedIn = await client.signIn(staff);
  const started = expectResponse(await client.post(AUTHENTICATOR_PAGE, [["intent", "start"]], signedIn), "set-up");
  if (started.status !== 302) throw new Error(`The authenticator set-up of ${staff.email} answered ${started.status}`);
  const withSetUp = withSetCookies(signedIn, started);
  const page = expectResponse(await client.get(AUTHENTICATOR_PAGE, withSetUp), "authenticator page");
  const key = /data-testid="authenticator-key"[^>]*>([A-Z2-7 ]+)</.exec(page.body.toString("utf8"))?.[1] ?? "";
  if (!key) throw new Error(`The authenticator page of ${staff.email} showed no key (${page.status})`);
  const totpSecret = key.replace(/\s+/g, "");
  const { code, nextStep } = await firstAuthenticatorCode(totpSecret);
  const confirmed = expectResponse(
    await client.post(
      AUTHENTICATOR_PAGE,
      [
        ["intent", "confirm"],
        ["code", code],
      ],
      withSetUp,
    ),
    "first code",
  );
  if (confirmed.status !== 200 || !confirmed.body.toString("utf8").includes("recovery-codes.txt")) {
    throw new Error(`The first code of ${staff.email} answered ${confirmed.status}`);
  }
  await secondAfter(Date.now());
  return { ...staff, totpSecret, nextStep };
}

/**
 * A staff tool's sign-in through the staff app client (ADMIN_USER_PASSWORD_AUTH, as the staff client allows it):
 * tokens for the admin API, 5 minutes long. When Cognito asks for the authenticator app's code, the next unused one
 * answers it; without the app Cognito gives the tokens for the password alone (which the admin API refuses).
 */
export async function staffTokensFor(sdk: StandInSdk, staff: SignInDetails): Promise<BearerTokens> {
  const started = await sdk.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: sdk.userPoolId,
      ClientId: sdk.staffClientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: staff.email, PASSWORD: staff.password },
    }),
  );
  if (started.AuthenticationResult) return bearerTokensOf(started.AuthenticationResult);
  if (started.ChallengeName !== "SOFTWARE_TOKEN_MFA" || !("totpSecret" in staff)) {
    throw new Error(`The staff sign-in of ${staff.email} answered ${started.ChallengeName}`);
  }
  const answered = await sdk.cognito.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId: sdk.userPoolId,
      ClientId: sdk.staffClientId,
      ChallengeName: "SOFTWARE_TOKEN_MFA",
      Session: started.Session,
      ChallengeResponses: {
        USERNAME: started.ChallengeParameters?.USER_ID_FOR_SRP ?? staff.email,
        SOFTWARE_TOKEN_MFA_CODE: await nextAuthenticatorCode(staff),
      },
    }),
  );
  return bearerTokensOf(answered.AuthenticationResult);
}

const expiryOf = (accessToken: string) =>
  (JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as { exp: number }).exp * 1000;

/**
 * New tokens for a staff member who has some: the refresh token (REFRESH_TOKEN_AUTH keeps `auth_time`, so no new
 * time step is spent), or a new sign-in when Cognito no longer takes it.
 */
export async function renewedStaffTokens(
  sdk: StandInSdk,
  staff: SignInDetails,
  previous: BearerTokens,
): Promise<BearerTokens> {
  try {
    const refreshed = await sdk.cognito.send(
      new InitiateAuthCommand({
        ClientId: sdk.staffClientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: previous.refreshToken },
      }),
    );
    return { ...bearerTokensOf(refreshed.AuthenticationResult), refreshToken: previous.refreshToken };
  } catch {
    return staffTokensFor(sdk, staff);
  }
}

/** A staff member's admin API token for a whole test file: renewed when less than a minute is left. */
export function staffTokenSource(sdk: StandInSdk, staff: SignInDetails): () => Promise<string> {
  let current: BearerTokens | undefined;
  return async () => {
    if (!current) current = await staffTokensFor(sdk, staff);
    else if (expiryOf(current.accessToken) - Date.now() < 60_000) {
      current = await renewedStaffTokens(sdk, staff, current);
    }
    return current.accessToken;
  };
}

async function staffTokensForOnce(app: AppUnderTest, staff: StaffWithAuthenticator): Promise<string> {
  const sdk = await connectToStandIn(app.standInPort);
  try {
    return (await staffTokensFor(sdk, staff)).accessToken;
  } finally {
    sdk.destroy();
  }
}

/** One admin per app server for refreshIntoDirectory, with its token source: each call needs no new sign-in. */
const directoryRefreshers = new Map<string, Promise<() => Promise<string>>>();

function directoryRefresher(app: AppUnderTest): Promise<() => Promise<string>> {
  let refresher = directoryRefreshers.get(app.url);
  if (!refresher) {
    refresher = (async () => {
      const staff = await createApiStaff(app, "directory-refresher");
      return staffTokenSource(await connectToStandIn(app.standInPort), staff);
    })();
    directoryRefreshers.set(app.url, refresher);
    refresher.catch(() => directoryRefreshers.delete(app.url));
  }
  return refresher;
}

/**
 * Puts members made straight in the stand-in into the staff directory the way a staff tool would: the admin API's
 * refresh (AdminGetUser, then the directory row), by `by` (whose audit log entries a test may look for) or by an
 * admin of the test support's own.
 */
export async function refreshIntoDirectory(
  app: AppUnderTest,
  members: readonly StaffTestMember[],
  options: { by?: StaffWithAuthenticator } = {},
): Promise<void> {
  const accessToken = options.by ? await staffTokensForOnce(app, options.by) : await (await directoryRefresher(app))();
  const client = new PageClient(app.url, app.origin);
  for (const member of members) {
    const outcome = await sendRawRequest(client.port, {
      method: "POST",
      target: `/api/admin/users/${member.sub}/refresh`,
      headers: [...client.headers(new Map()), ["Authorization", `Bearer ${accessToken}`]],
      body: Buffer.alloc(0),
    });
    const response = expectResponse(outcome, `refresh of ${member.email}`);
    if (response.status !== 200) {
      throw new Error(`refresh of ${member.email}: ${response.status} ${response.body.toString("utf8")}`);
    }
  }
}
