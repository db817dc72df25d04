/**
 * Cognito calls per sign-in kind (`npx tsx tests/bench/cognito-calls.ts`): how many requests the stand-in's counter
 * sees for a password sign-in, a sign-in with the authenticator app's code, a passkey sign-in, and a signed-in page
 * view. Each sign-in is a new browser of a member made for it (no earlier session of the browser to replace, whose
 * refresh-token revocation would add a call: see sign-in.ts for the loop that does).
 *
 * The route modules are called in-process, as the integration tests call them (tests/support/route-calls.ts), on
 * the embedded Cognito stand-in over HTTP through the AWS SDK and PGlite; codes are computed from the member's key as
 * an app would, passkeys made by the software authenticator. Expected: password 1, code 2 (one more than the
 * password), passkey at most 2, page view 0.
 *
 * A report, not a test: it exits non-zero only when it cannot count (a step that does not sign in).
 */
import { createAppServices } from "~/composition-root.server";
import { parseConfig } from "~/config.server";
import { resolvePageSession } from "~/domain/sessions/page-sessions.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import * as signInPage from "~/routes/default/auth-sign-in";
import * as twoStepPage from "~/routes/default/auth-two-step";
import * as profilePage from "~/routes/member/my-profile";
import * as securityPage from "~/routes/member/my-security";
import { pathFor } from "~/routing/route-table";
import type { AppServices } from "~/services.server";
import { openDatabase } from "~db/client.server";
import { routeCalls, settle } from "../support/route-calls";
import { MEMBER_PASSWORD, serverTokenFor, signedInMember } from "../support/signed-in-members";
import { SoftwarePasskey } from "../support/software-authenticator";
import { type RequestCounts, getRequestCounts, resetRequestCounts } from "../support/stand-in-faults";
import { startEmbeddedStack } from "../support/stand-ins/embedded-stack";
import { totpCode } from "../support/totp-codes";
import { makeTempDir, printTable, runBenchmarkMain } from "./bench-support";

/** A host name, not an IP: WebAuthn's relying party, which the stand-in's pool takes from APP_ORIGIN. */
const ORIGIN = "http://localhost:3990";
const SIGN_IN = `${pathFor("auth-sign-in", "ja")}?to=my-profile`;

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");

function signedInOrThrow(response: unknown, step: string): Response {
  if (!(response instanceof Response) || !response.headers.getSetCookie().some((line) => /^id_session=[^;]/.test(line)))
    throw new Error(`${step} did not sign in`);
  return response;
}

async function countSignIns(services: AppServices, endpoint: string) {
  const calls = routeCalls(ORIGIN, () => services);
  const action = async (page: typeof signInPage | typeof twoStepPage, request: Request) =>
    settle(page.action(calls.args(request, await calls.context(request, null))));
  /** The stand-in's count for what `run` does, with the signed-in member's browser it ends with. */
  const counted = async <T>(run: () => Promise<T>): Promise<{ counts: RequestCounts; result: T }> => {
    await resetRequestCounts(endpoint);
    const result = await run();
    return { counts: await getRequestCounts(endpoint), result };
  };

  // A password sign-in: the sign-in form's post.
  const plain = await signedInMember(services, "bench-password");
  const password = await counted(async () =>
    signedInOrThrow(
      await action(
        signInPage,
        calls.post(SIGN_IN, { intent: "sign-in", email: plain.email, password: MEMBER_PASSWORD }),
      ),
      "the password sign-in",
    ),
  );

  // A page view of the signed-in browser: its session resolved, the profile page's loader.
  const view = await counted(async () => {
    const resolution = await resolvePageSession(services, plain);
    if (resolution.kind !== "member") throw new Error(`the page's session resolved as ${resolution.kind}`);
    const request = calls.get(pathFor("my-profile", "ja"));
    return profilePage.loader(calls.args(request, await calls.context(request, resolution.member)));
  });

  // A sign-in with the app's code: the password post, then the code step's post (the step after the set-up's).
  const coded = await signedInMember(services, "bench-code");
  const token = await serverTokenFor(services, coded);
  const secret = await startAuthenticatorSetup(services, { token });
  await turnOnTwoStep(services, { ...coded, token, clientIp: "127.0.0.1", locale: "ja", code: totpCode(secret) });
  const code = await counted(async () => {
    const first = (await action(
      signInPage,
      calls.post(SIGN_IN, { intent: "sign-in", email: coded.email, password: MEMBER_PASSWORD }),
    )) as Response;
    const step = calls.post(
      `${pathFor("auth-two-step", "ja")}?to=my-profile`,
      { intent: "code", code: totpCode(secret, { steps: 1 }) },
      cookiesOf(first),
    );
    return signedInOrThrow(await action(twoStepPage, step), "the code step");
  });

  // A passkey sign-in: the button's post (Cognito's options) and the browser's answer.
  const keyed = await signedInMember(services, "bench-passkey");
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  const securityPost = async (fields: Record<string, string>) => {
    const request = calls.post(pathFor("my-security", "ja"), fields);
    return settle(securityPage.action(calls.args(request, await calls.context(request, keyed))));
  };
  const options = (await securityPost({ intent: "passkey-options" })) as {
    data: { passkeyCreationOptions: Parameters<SoftwarePasskey["create"]>[0] };
  };
  const credential = passkey.create(options.data.passkeyCreationOptions);
  await securityPost({ intent: "passkey-add", credential: JSON.stringify(credential) });
  const passkeyCounts = await counted(async () => {
    const started = (await action(
      signInPage,
      calls.post(SIGN_IN, { intent: "passkey-options", email: keyed.email, password: "" }),
    )) as { data: { passkeyRequestOptions?: Parameters<SoftwarePasskey["get"]>[0] }; init: ResponseInit | null };
    if (!started.data.passkeyRequestOptions) throw new Error("the passkey button got no options");
    const cookie = new Headers(started.init?.headers).get("Set-Cookie")?.split(";")[0];
    const answer = calls.post(
      SIGN_IN,
      { intent: "passkey-sign-in", credential: JSON.stringify(passkey.get(started.data.passkeyRequestOptions)) },
      cookie,
    );
    return signedInOrThrow(await action(signInPage, answer), "the passkey sign-in");
  });

  const byOperation = (counts: RequestCounts) =>
    Object.entries(counts.byOperation)
      .map(([operation, count]) => `${operation} ${count}`)
      .join(", ") || "none";
  console.log();
  printTable(
    ["what", "Cognito calls", "which"],
    [
      ["password sign-in", String(password.counts.total), byOperation(password.counts)],
      ["sign-in with the app's code", String(code.counts.total), byOperation(code.counts)],
      ["passkey sign-in", String(passkeyCounts.counts.total), byOperation(passkeyCounts.counts)],
      ["signed-in page view", String(view.counts.total), byOperation(view.counts)],
    ],
  );
}

async function runBenchmark() {
  const dataDir = makeTempDir("cognito-calls");
  // The stand-in's pool takes its relying party from APP_ORIGIN, as the deployment contract asks of Cognito's.
  process.env.APP_ORIGIN = ORIGIN;
  const stack = await startEmbeddedStack({ dataDir, adminGroup: "admin" });
  const database = openDatabase({ dataDir });
  try {
    await database.migrate();
    const config = parseConfig({ ...stack.env, APP_MODE: "dev", APP_ORIGIN: ORIGIN, DATA_DIR: dataDir });
    await countSignIns(createAppServices(config, database.db), stack.env.COGNITO_ENDPOINT!);
  } finally {
    await database.close();
    await stack.stop();
  }
}

await runBenchmarkMain(runBenchmark);
