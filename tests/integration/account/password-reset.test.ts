import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import en from "../../../locales/en/code-mail.json";
import ja from "../../../locales/ja/code-mail.json";
import { codeMailsTo } from "../../support/code-mails";
import { pairOf, setCookieNamed } from "../../support/cookie-jar";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { COGNITO_CALL_TIMEOUT_MS } from "~/integrations/cognito/cognito-client.server";
import { bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { type FaultSettings, resetHarness, setFault } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";
import { makeTempDir } from "../../support/temp-dir";
import { toastTextIn } from "../../support/toast-text";

/**
 * The forgot-password page over HTTP against the production build, its Cognito stand-in made to throttle or
 * fail: the member reads the page's own message in the page's language, the status says what happened, never a 500;
 * and the reset code's mail is in the page's language.
 */
const dataDir = makeTempDir("password-reset");
let server: ServerProcess;
let standIn: string;

beforeAll(async () => {
  server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "silent", DATA_DIR: dataDir.dir });
  standIn = `http://127.0.0.1:${server.standInPort}`;
});

afterAll(async () => {
  await server?.stop();
  dataDir.remove();
});

afterEach(async () => {
  await resetHarness(standIn);
});

const unknownAddress = () => `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`;

/** The app's own origin (APP_ORIGIN names localhost): React Router refuses a POST whose Origin is another host. */
const appOrigin = () => `http://localhost:${new URL(server.url).port}`;

function post(path: string, fields: Record<string, string>, cookie = "") {
  return fetch(`${appOrigin()}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: appOrigin(),
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: new URLSearchParams(fields),
  });
}

function resetCookieOf(response: Response): string {
  return pairOf(setCookieNamed(response, "id_password_reset") ?? "");
}

/** The confirm step's cookie, from a request for an address nobody has (which must work like any other). */
async function startReset(): Promise<string> {
  const response = await post("/auth/forgot-password/", { intent: "request", email: unknownAddress() });
  expect(response.status).toBe(302);
  const cookie = resetCookieOf(response);
  expect(cookie).not.toBe("");
  return cookie;
}

// Pages carry their translations as data, so a message counts only where it is rendered: a heading, an error
// list item or the toast.
const headingIn = (html: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
const errorsIn = (html: string) =>
  [...html.matchAll(/class="error-list__item"[^>]*>([^<]*)</g)].map((match) => match[1]);

const THROTTLES: [string, FaultSettings][] = [
  ["TooManyRequestsException", { mode: "throttle", error: "TooManyRequestsException" }],
  ["LimitExceededException", { mode: "throttle", error: "LimitExceededException" }],
  ["TooManyFailedAttemptsException", { mode: "error", error: "TooManyFailedAttemptsException" }],
];

test.each(THROTTLES)(
  "a throttled request (%s) says the attempt limit is exceeded, in either language",
  async (_, fault) => {
    await setFault(standIn, { ...fault, operations: ["ForgotPassword"] });
    const ja = await post("/auth/forgot-password/", { intent: "request", email: unknownAddress() });
    expect(ja.status).toBe(429);
    expect(resetCookieOf(ja)).toBe("");
    expect(errorsIn(await ja.text())).toEqual(["試行回数の上限を超えました。時間をおいて再度お試しください"]);

    const email = unknownAddress();
    const en = await post("/en/auth/forgot-password/", { intent: "request", email });
    expect(en.status).toBe(429);
    const page = await en.text();
    expect(errorsIn(page)).toEqual(["Attempt limit exceeded. Please try again later"]);
    expect(page).toContain(`value="${email}"`);
  },
);

test("Cognito failing on the request says it is temporarily unavailable (503), not a 500", async () => {
  await setFault(standIn, { mode: "fail", operations: ["ForgotPassword"] });
  const response = await post("/auth/forgot-password/", { intent: "request", email: unknownAddress() });
  expect(response.status).toBe(503);
  expect(errorsIn(await response.text())).toEqual([
    "認証サービスが一時的に利用できません。時間をおいて再度お試しください",
  ]);
});

test("a throttled confirm keeps the code, never the password, and says the attempt limit is exceeded", async () => {
  const cookie = await startReset();
  await setFault(standIn, { mode: "throttle", error: "LimitExceededException", operations: ["ConfirmForgotPassword"] });
  const response = await post(
    "/auth/forgot-password/",
    { intent: "confirm", code: "123456", password: "never-shown-again" },
    cookie,
  );
  expect(response.status).toBe(429);
  const page = await response.text();
  expect(errorsIn(page)).toEqual(["試行回数の上限を超えました。時間をおいて再度お試しください"]);
  expect(page).toContain('value="123456"');
  expect(page).not.toContain("never-shown-again");
});

test("Cognito failing on the confirm step says it is temporarily unavailable (503)", async () => {
  const cookie = await startReset();
  await setFault(standIn, { mode: "fail", operations: ["ConfirmForgotPassword"] });
  const response = await post(
    "/auth/forgot-password/",
    { intent: "confirm", code: "123456", password: "long-enough-1" },
    cookie,
  );
  expect(response.status).toBe(503);
  expect(errorsIn(await response.text())).toEqual([
    "認証サービスが一時的に利用できません。時間をおいて再度お試しください",
  ]);
});

test("a reset Cognito made but answered too late is reported as made: the new password is in force", async () => {
  const member = await createTestMember(server.standInPort, "reset-late");
  const requested = await post("/auth/forgot-password/", { intent: "request", email: member.email });
  const [mail] = await codeMailsTo(dataDir.dir, member.email);
  // The first ConfirmForgotPassword sets the password and is answered after the SDK gave up; its retry finds the code
  // used and is refused: only a sign-in with the new password can tell what happened.
  await setFault(standIn, {
    mode: "slowAnswer",
    delayMs: COGNITO_CALL_TIMEOUT_MS + 2_000,
    operations: ["ConfirmForgotPassword"],
    times: 1,
  });
  const newPassword = "lantern-orchard-velvet-42";
  const response = await post(
    "/auth/forgot-password/",
    { intent: "confirm", code: mail!.code!, password: newPassword },
    resetCookieOf(requested),
  );
  expect(response.status).toBe(302);
  await resetHarness(standIn);
  const sdk = await connectToStandIn(server.standInPort);
  try {
    await expect(bearerTokensFor(sdk, member.email, newPassword)).resolves.toHaveProperty("accessToken");
  } finally {
    sdk.destroy();
  }
});

test("a throttled resend comes back to the confirm step with the attempt-limit toast", async () => {
  const cookie = await startReset();
  await setFault(standIn, { mode: "throttle", operations: ["ForgotPassword"] });
  const response = await post("/auth/forgot-password/", { intent: "resend" }, cookie);
  expect(response.status).toBe(302);
  const toast = pairOf(setCookieNamed(response, "toast") ?? "");
  const next = await fetch(`${appOrigin()}${response.headers.get("Location")}`, {
    headers: { Cookie: `${cookie}; ${toast}` },
  });
  expect(next.status).toBe(200);
  const page = await next.text();
  expect(toastTextIn(page)).toBe("試行回数の上限を超えました。時間をおいて再度お試しください");
  expect(headingIn(page)).toBe("新しいパスワードの設定");
});

test("the reset cookie is host-only, HttpOnly, SameSite=Lax and lasts 30 minutes; start over clears it", async () => {
  const response = await post("/auth/forgot-password/", { intent: "request", email: unknownAddress() });
  const setCookie = setCookieNamed(response, "id_password_reset") ?? "";
  expect(setCookie).toMatch(/; Max-Age=1800(;|$)/);
  expect(setCookie).toMatch(/; Path=\/(;|$)/);
  expect(setCookie).toMatch(/; HttpOnly(;|$)/);
  expect(setCookie).toMatch(/; SameSite=Lax(;|$)/);
  expect(setCookie).not.toMatch(/Domain=/i);

  const cleared = await post("/auth/forgot-password/", { intent: "start-over" }, pairOf(setCookie));
  expect(cleared.status).toBe(302);
  expect(setCookieNamed(cleared, "id_password_reset")).toMatch(/Max-Age=0/);
});

test("a tampered cookie is ignored: the page asks for the address again", async () => {
  const cookie = await startReset();
  const [name, value] = cookie.split("=");
  const forged = `${name}=${Buffer.from(JSON.stringify({ email: "victim@example.jp", sends: 1, expiresAt: Date.now() + 60_000 })).toString("base64")}${value?.slice(value.indexOf(".")) ?? ""}`;
  const page = await (await fetch(`${appOrigin()}/auth/forgot-password/`, { headers: { Cookie: forged } })).text();
  expect(headingIn(page)).toBe("パスワードの再設定");
  expect(page).not.toContain("victim@example.jp");
});

test("the reset code's mail is in the page's language: Japanese from /auth/, English from /en/auth/", async () => {
  const member = await createTestMember(server.standInPort, "reset-mail");
  for (const path of ["/auth/forgot-password/", "/en/auth/forgot-password/"]) {
    expect((await post(path, { intent: "request", email: member.email })).status).toBe(302);
  }
  const [english, japanese] = await codeMailsTo(dataDir.dir, member.email, 2);
  expect(japanese!.subject).toBe(ja.forgotPassword.subject);
  expect(japanese!.text).toBe(ja.forgotPassword.text.replace("{{code}}", japanese!.code!));
  expect(english!.subject).toBe(en.forgotPassword.subject);
  expect(english!.text).toBe(en.forgotPassword.text.replace("{{code}}", english!.code!));
});
