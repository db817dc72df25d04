import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberDirectory } from "~db/schema";
import jaToasts from "../../../locales/ja/toasts.json";
import { requestInfoContext } from "~/router-context.server";
import * as staffSignInPage from "~/routes/default/admin-sign-in";
import * as signInPage from "~/routes/default/auth-sign-in";
import * as securityPage from "~/routes/member/my-security";
import { pathFor } from "~/routing/route-table";
import type { Clock } from "~/services.server";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { cookieHeader, pairOf, setCookieNamed } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { MEMBER_PASSWORD, signInMember } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { useTestServices } from "../../support/test-services";

// Lockouts that stop attackers, not members (docs/security.md, "Rate limits";
// app/domain/limits/sign-in-failures.server.ts), through the sign-in route modules on real parts: the Cognito stand-in
// over HTTP, PGlite (or PostgreSQL). The default limits: 5 refusals per account and client, 10 per account, 10 per
// known browser, each per 15 minutes. The clock stands still, so no test straddles two windows; each client is an
// address of its own.
const ORIGIN = "http://localhost:3996";
const current = new Date();
const clock: Clock = { now: () => current };
const app = useTestServices({ label: "sign-in-lockouts", origin: ORIGIN, clock });
const calls = routeCalls(ORIGIN, () => app.services);
const SIGN_IN = pathFor("auth-sign-in", "ja");
const STAFF_SIGN_IN = pathFor("admin-sign-in", "ja");
const WRONG = "not-the-password";

/** A client address of its own (documentation range). */
const someIp = () => {
  const [a, b] = crypto.getRandomValues(new Uint8Array(2));
  return `198.51.${a}.${b}`;
};

type FormReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit | null };

async function contextFor(request: Request, clientIp: string) {
  const context = await calls.context(request, null);
  context.set(requestInfoContext, { requestId: "sign-in-lockouts", nonce: "", clientIp });
  return context;
}

/** The sign-in form's post from a client, with the browser's cookies (none: a browser never seen). */
async function signInPost(email: string, password: string, from: { ip: string; cookie?: string }) {
  const request = calls.post(SIGN_IN, { intent: "sign-in", email, password }, from.cookie);
  return (await settle(signInPage.action(calls.args(request, await contextFor(request, from.ip))))) as
    Response | FormReply;
}

const statusOf = (answer: Response | FormReply) => (answer instanceof Response ? answer.status : answer.init?.status);
const formErrorOf = (answer: Response | FormReply) =>
  answer instanceof Response ? undefined : answer.data.result.error?.[""];

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: MEMBER_PASSWORD, attributes: { locale: "ja" } });
  // The directory's copy of the address (written after Cognito's, off the way), which tells the sign-in whose
  // browser a device key may be.
  await expect
    .poll(async () => (await app.db.select().from(memberDirectory).where(eq(memberDirectory.email, email))).length)
    .toBe(1);
  return email;
}

/** A browser that signs the member in through the form: the device-key cookie it keeps afterwards. */
async function knownBrowserOf(email: string) {
  const signedIn = (await signInPost(email, MEMBER_PASSWORD, { ip: someIp() })) as Response;
  expect(signedIn.status).toBe(302);
  return pairOf(setCookieNamed(signedIn, "id_device")!);
}

async function wrongPasswords(email: string, times: number, ip: string) {
  const statuses: (number | undefined)[] = [];
  for (let attempt = 0; attempt < times; attempt++) statuses.push(statusOf(await signInPost(email, WRONG, { ip })));
  return statuses;
}

test("30 strangers' wrong passwords from one client: the member's known browser still signs in, that client stays refused", async () => {
  const email = await createMember("lockout");
  const browser = await knownBrowserOf(email);
  const attacker = someIp();

  const statuses = await wrongPasswords(email, 30, attacker);
  // Five refusals per account and client; the rest never reach Cognito.
  expect(statuses.slice(0, 5)).toEqual(Array(5).fill(400));
  expect(statuses.slice(5)).toEqual(Array(25).fill(429));

  // The member's browser, from anywhere (the attacker's address included): its own budget.
  for (const ip of [someIp(), attacker]) {
    const signedIn = await signInPost(email, MEMBER_PASSWORD, { ip, cookie: browser });
    expect(statusOf(signedIn)).toBe(302);
    expect((signedIn as Response).headers.getSetCookie().join("\n")).toMatch(/id_session=[^;]/);
  }
  // A browser never seen, from the attacker's address: refused even with the right password, before Cognito.
  const stranger = await signInPost(email, MEMBER_PASSWORD, { ip: attacker });
  expect(statusOf(stranger)).toBe(429);
  expect(formErrorOf(stranger)).toEqual([jaToasts.loginAttemptLimitExceeded]);
  // From another address the account's own budget (10) is not spent yet: the member's new browser gets in.
  expect(statusOf(await signInPost(email, MEMBER_PASSWORD, { ip: someIp() }))).toBe(302);
});

test("once strangers from several clients spent the account's budget, new browsers wait out the window; the known browser and the passkey do not", async () => {
  const email = await createMember("spent");
  const browser = await knownBrowserOf(email);
  const passkey = await passkeyOf(email);
  expect(await wrongPasswords(email, 5, someIp())).toEqual(Array(5).fill(400));
  expect(await wrongPasswords(email, 6, someIp())).toEqual([...Array(5).fill(400), 429]);

  // The account's ten are spent: a browser never seen is refused from any address, the right password too.
  const fresh = await signInPost(email, MEMBER_PASSWORD, { ip: someIp() });
  expect(statusOf(fresh)).toBe(429);
  expect(formErrorOf(fresh)).toEqual([jaToasts.loginAttemptLimitExceeded]);
  expect(statusOf(await signInPost(email, MEMBER_PASSWORD, { ip: someIp(), cookie: browser }))).toBe(302);
  // The passkey button is a factor of its own, with budgets wrong passwords never touch.
  expect((await passkeySignIn(email, passkey, someIp())).status).toBe(302);
});

test("the refusals read the same for a member's address and an address nobody has", async () => {
  const member = await createMember("same");
  const nobody = `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const answers = [];
  for (const email of [member, nobody]) {
    const ip = someIp();
    const statuses = await wrongPasswords(email, 5, ip);
    const refused = await signInPost(email, WRONG, { ip });
    answers.push({ statuses, status: statusOf(refused), error: formErrorOf(refused) });
  }
  expect(answers[0]).toEqual(answers[1]);
  expect(answers[0]).toEqual({
    statuses: Array(5).fill(400),
    status: 429,
    error: [jaToasts.loginAttemptLimitExceeded],
  });
});

test("a member who signs in successfully twelve times in fifteen minutes is never refused, known browser or new", async () => {
  const email = await createMember("often");
  const ip = someIp();
  const browser = await knownBrowserOf(email);
  for (let signIn = 0; signIn < 12; signIn++) {
    // Alternately the known browser and a new one each time, all from one address: successes never count.
    const cookie = signIn % 2 === 0 ? browser : undefined;
    expect(statusOf(await signInPost(email, MEMBER_PASSWORD, { ip, cookie }))).toBe(302);
  }
  // A few typos among them still leave room.
  expect(await wrongPasswords(email, 4, ip)).toEqual(Array(4).fill(400));
  expect(statusOf(await signInPost(email, MEMBER_PASSWORD, { ip }))).toBe(302);
});

test("the known browser's own typos are limited to its own budget", async () => {
  const email = await createMember("typos");
  const browser = await knownBrowserOf(email);
  const statuses = [];
  for (let attempt = 0; attempt < 11; attempt++) {
    statuses.push(statusOf(await signInPost(email, WRONG, { ip: someIp(), cookie: browser })));
  }
  expect(statuses).toEqual([...Array(10).fill(400), 429]);
  // The account's stranger budget was not touched: a new browser still gets in.
  expect(statusOf(await signInPost(email, MEMBER_PASSWORD, { ip: someIp() }))).toBe(302);
});

test("staff sign-in has its own budget: members' wrong passwords for the staff address do not close /admin/sign-in/", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "lockout-staff");
  await wrongPasswords(staff.email, 5, someIp());
  await wrongPasswords(staff.email, 6, someIp());
  expect(statusOf(await signInPost(staff.email, staff.password, { ip: someIp() }))).toBe(429);

  const request = calls.post(STAFF_SIGN_IN, { intent: "password", email: staff.email, password: staff.password });
  const answer = (await settle(staffSignInPage.action(calls.args(request, await contextFor(request, someIp()))))) as
    Response | FormReply;
  // The password accepted: on to the code step.
  expect(statusOf(answer)).toBe(302);
  expect(cookieHeader(answer as Response)).toMatch(/id_staff_code_step=/);
});

/** A passkey the member added on /my/security/ after signing in (their password recent). */
async function passkeyOf(email: string) {
  const member = await signInMember(app.services, email, { clientIp: someIp() });
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  const post = async (fields: Record<string, string>) => {
    const request = calls.post(pathFor("my-security", "ja"), fields);
    return settle(securityPage.action(calls.args(request, await calls.context(request, member))));
  };
  const options = (await post({ intent: "passkey-options" })) as {
    data: { passkeyCreationOptions: Parameters<SoftwarePasskey["create"]>[0] };
  };
  const credential = passkey.create(options.data.passkeyCreationOptions);
  expect(((await post({ intent: "passkey-add", credential: JSON.stringify(credential) })) as Response).status).toBe(
    302,
  );
  return passkey;
}

/** The sign-in form's two passkey posts from a browser never seen. */
async function passkeySignIn(email: string, passkey: SoftwarePasskey, ip: string) {
  const start = calls.post(SIGN_IN, { intent: "passkey-options", email, password: "" });
  const started = (await settle(signInPage.action(calls.args(start, await contextFor(start, ip))))) as {
    data: { passkeyRequestOptions?: Parameters<SoftwarePasskey["get"]>[0] };
    init: ResponseInit | null;
  };
  const options = started.data.passkeyRequestOptions;
  if (!options) throw new Error(`no passkey challenge: ${JSON.stringify(started.data)}`);
  const cookie = cookieHeader({ headers: new Headers(started.init?.headers) });
  const answer = calls.post(
    SIGN_IN,
    { intent: "passkey-sign-in", credential: JSON.stringify(passkey.get(options)) },
    cookie,
  );
  return (await settle(signInPage.action(calls.args(answer, await contextFor(answer, ip))))) as Response;
}
