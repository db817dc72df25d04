import { AdminRemoveUserFromGroupCommand } from "@aws-sdk/client-cognito-identity-provider";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberPasskeys, staffSessions } from "~db/schema";
import { staffSessionCookie } from "~/cookies/app-cookies.server";
import { addPasskey, passkeyCreationOptions } from "~/domain/account/passkeys.server";
import { completeStaffPasskeySignIn } from "~/domain/sessions/staff-passkey-sign-in.server";
import { resolveStaffSession } from "~/domain/sessions/staff-sessions.server";
import * as staffSignInPage from "~/routes/default/admin-sign-in";
import { pathFor } from "~/routing/route-table";
import type { Clock } from "~/services.server";
import { type StaffTestMember, createNamedMember, createStaffAdmin } from "../../support/admin-members";
import { connectToStandIn } from "../../support/bearer-tokens";
import { cookieHeader, cookieHeaderAfter } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { serverTokenFor } from "../../support/signed-in-members";
import { SoftwarePasskey } from "../../support/software-authenticator";
import { useTestServices } from "../../support/test-services";

// The staff sign-in with a passkey as the second factor (app/domain/sessions/staff-passkey-sign-in.server.ts) through
// the staff sign-in's route module on real parts: the stand-in's staff app client, its USER_AUTH flow and WEB_AUTHN
// challenge over HTTP (every assertion checked by @simplewebauthn/server), PGlite or PostgreSQL. A software
// authenticator plays the browser's navigator.credentials; the origin is localhost's, the pool's relying party.
const ORIGIN = "http://localhost:3996";
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
const app = useTestServices({ label: "staff-passkey-sign-in", origin: ORIGIN, clock });
const calls = routeCalls(ORIGIN, () => app.services);
const MINUTE_MS = 60_000;

type Locale = "ja" | "en";
const signInPath = (locale: Locale, search = "?to=admin-users") => `${pathFor("admin-sign-in", locale)}${search}`;

/** A member with a passkey registered as the security page registers it (Cognito and our list). */
async function withPasskey(member: StaffTestMember): Promise<SoftwarePasskey> {
  const token = await serverTokenFor(app.services, member, member.password);
  const passkey = new SoftwarePasskey({ origin: ORIGIN });
  const options = await passkeyCreationOptions(app.services, { token });
  await addPasskey(app.services, {
    sub: member.sub,
    email: member.email,
    token,
    clientIp: "192.0.2.20",
    userAgent: null,
    locale: "en",
    credential: { ...passkey.create(options as never) },
  });
  return passkey;
}

async function staffWithPasskey(label: string) {
  const staff = await createStaffAdmin(app.standInPort, label);
  return { ...staff, passkey: await withPasskey(staff) };
}

async function post(path: string, fields: Record<string, string>, cookie = "") {
  const request = calls.post(path, fields, cookie);
  return settle(staffSignInPage.action(calls.args(request, await calls.context(request, null))));
}

async function load(path: string, cookie = "") {
  const request = calls.get(path, cookie);
  return settle(staffSignInPage.loader(calls.args(request, await calls.context(request, null))));
}

type OptionsReply = {
  data: { passkeyRequestOptions?: Parameters<SoftwarePasskey["get"]>[0]; passkeyRefusal?: string };
  init: ResponseInit | null;
};

/** "Use your passkey": Cognito's request options and the step cookie holding its challenge. */
async function passkeyOptions(path: string, cookie: string) {
  const reply = (await post(path, { intent: "passkey-options" }, cookie)) as OptionsReply | Response;
  if (reply instanceof Response) return { redirected: reply };
  return {
    options: reply.data.passkeyRequestOptions,
    refusal: reply.data.passkeyRefusal,
    status: reply.init?.status,
    // The step now holds Cognito's challenge; the browser's other cookies stay.
    cookie: cookieHeaderAfter(cookie, { headers: new Headers(reply.init?.headers) }),
  };
}

/** The password step: its redirect and the passkey step's cookie. */
async function passwordStep(member: StaffTestMember, path: string) {
  const response = (await post(path, { intent: "password", email: member.email, password: member.password })) as
    Response | { init: ResponseInit };
  return { response, cookie: response instanceof Response ? cookieHeader(response) : "" };
}

const clearsPasskeyStep = (setCookie: string) =>
  setCookie.startsWith("id_staff_passkey_step=") && /Max-Age=0/i.test(setCookie);

const staffRows = (sub: string) => app.db.select().from(staffSessions).where(eq(staffSessions.sub, sub));

function claimsOf(token: string) {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { client_id: string; sub: string };
}

test.each(["ja", "en"] as const)(
  "(%s) the password, then the passkey open a staff session with a staff-client token, back to `to`",
  async (locale) => {
    offsetMs = 0;
    const staff = await staffWithPasskey(`staff-passkey-${locale}`);
    const path = signInPath(locale);
    const password = await passwordStep(staff, path);
    expect(password.response).toBeInstanceOf(Response);
    expect((password.response as Response).headers.get("Location")).toBe(path);
    expect(password.cookie).toMatch(/id_staff_passkey_step=/);
    expect(password.cookie).not.toMatch(/id_staff_session=|id_staff_code_step=/);

    const page = (await load(path, password.cookie)) as { view: string; email: string };
    expect(page).toMatchObject({ view: "passkey", email: staff.email });

    const started = await passkeyOptions(path, password.cookie);
    expect(started.options?.allowCredentials?.map((credential) => credential.id)).toEqual([staff.passkey.id]);
    const answered = (await post(
      path,
      { intent: "passkey", credential: JSON.stringify(staff.passkey.get(started.options!)) },
      started.cookie!,
    )) as Response;
    expect(answered.status).toBe(302);
    expect(answered.headers.get("Location")).toBe(pathFor("admin-users", locale));
    expect(answered.headers.getSetCookie().some(clearsPasskeyStep)).toBe(true);

    const session = await staffSessionCookie.read(
      app.services.config,
      new Request(ORIGIN, { headers: { Cookie: cookieHeader(answered) } }),
    );
    expect(claimsOf(session!.at)).toMatchObject({
      client_id: app.services.config.cognito.staffClientId,
      sub: staff.sub,
    });
    const resolved = await resolveStaffSession(app.services, { sessionId: session!.sid, accessToken: session!.at });
    expect(resolved).toMatchObject({ kind: "staff", staff: { sub: staff.sub, email: staff.email, groups: ["admin"] } });
    const [passkeyRow] = await app.db
      .select()
      .from(memberPasskeys)
      .where(eq(memberPasskeys.credentialId, staff.passkey.id));
    expect(passkeyRow?.lastUsedAt).not.toBeNull();
  },
);

test("confirming before a high-impact action takes the password and the passkey, and replaces the staff session", async () => {
  offsetMs = 0;
  const staff = await staffWithPasskey("staff-passkey-confirm");
  const open = async (path: string, cookie = "") => {
    const password = await passwordStep(staff, path);
    const started = await passkeyOptions(path, cookieHeaderAfter(cookie, password.response as Response));
    const credential = JSON.stringify(staff.passkey.get(started.options!));
    return (await post(path, { intent: "passkey", credential }, started.cookie!)) as Response;
  };
  const first = await open(signInPath("ja"));
  const firstSession = await staffSessionCookie.read(
    app.services.config,
    new Request(ORIGIN, { headers: { Cookie: cookieHeader(first) } }),
  );
  offsetMs = 5 * MINUTE_MS;
  const back = pathFor("admin-user", "en", { sub: crypto.randomUUID() });
  const confirmPath = signInPath("en", `?${new URLSearchParams({ mode: "confirm", to: back })}`);
  const confirmed = await open(confirmPath, cookieHeader(first));
  expect(confirmed.headers.get("Location")).toBe(back);
  const rows = await staffRows(staff.sub);
  expect(rows.find((row) => row.id === firstSession!.sid)?.endedAt).not.toBeNull();
  const live = rows.filter((row) => row.endedAt === null);
  expect(live).toHaveLength(1);
  const firstRow = rows.find((row) => row.id === firstSession!.sid)!;
  // Verified again when confirmed, five minutes of the app's clock after the first sign-in.
  expect(live[0]!.passwordVerifiedAt.getTime() - firstRow.passwordVerifiedAt.getTime()).toBeGreaterThanOrEqual(
    5 * MINUTE_MS,
  );
  offsetMs = 0;
});

test("the passkey step without the password step's cookie is refused: a passkey alone never opens the staff area", async () => {
  offsetMs = 0;
  const staff = await staffWithPasskey("staff-passkey-alone");
  const path = signInPath("ja");

  // No step, and a made-up one: back to the password, no Cognito challenge.
  for (const cookie of ["", `id_staff_passkey_step=${encodeURIComponent("not-a-sealed-step")}`]) {
    const started = await passkeyOptions(path, cookie);
    expect(started.redirected?.headers.get("Location")).toBe(path);
  }

  // Someone holding the passkey runs Cognito's USER_AUTH on the staff client themselves: the assertion is good, but
  // without a password step the page does not take it.
  const challenge = await app.services.identity.staffBeginPasskeySignIn(staff.email);
  if (challenge.kind !== "webAuthn") throw new Error("no WEB_AUTHN challenge");
  const credential = JSON.stringify(staff.passkey.get(JSON.parse(challenge.requestOptionsJson) as never));
  const refused = (await post(path, { intent: "passkey", credential })) as Response;
  expect(refused.headers.get("Location")).toBe(path);
  expect(cookieHeader(refused)).not.toMatch(/id_staff_session=/);

  // The password step counts for 10 minutes only.
  const password = await passwordStep(staff, path);
  offsetMs = 11 * MINUTE_MS;
  expect(((await load(path, password.cookie)) as { view: string }).view).toBe("password");
  const late = await passkeyOptions(path, password.cookie);
  expect(late.redirected?.headers.get("Location")).toBe(path);
  offsetMs = 0;

  // A step with the password but no challenge yet (the button never pressed) does not take an answer either.
  const early = (await post(path, { intent: "passkey", credential }, password.cookie)) as Response;
  expect(cookieHeader(early)).not.toMatch(/id_staff_session=/);

  expect(await staffRows(staff.sub)).toEqual([]);
});

test("another member's passkey, an unregistered one and a forged signature are refused; the step stays for a retry", async () => {
  offsetMs = 0;
  const staff = await staffWithPasskey("staff-passkey-forged");
  const other = await createNamedMember(app.standInPort, {
    email: `passkey-other-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  const otherPasskey = await withPasskey(other);
  const path = signInPath("en");
  const password = await passwordStep(staff, path);

  const forge = (options: Parameters<SoftwarePasskey["get"]>[0]) => {
    const assertion = staff.passkey.get(options);
    const signature = Buffer.from(assertion.response.signature, "base64url");
    signature[signature.length - 1]! ^= 0xff;
    return { ...assertion, response: { ...assertion.response, signature: signature.toString("base64url") } };
  };
  const attempts = [
    (options: Parameters<SoftwarePasskey["get"]>[0]) => otherPasskey.get({ ...options, allowCredentials: [] }),
    (options: Parameters<SoftwarePasskey["get"]>[0]) =>
      new SoftwarePasskey({ origin: ORIGIN }).get({ ...options, allowCredentials: [] }),
    forge,
  ];
  for (const attempt of attempts) {
    const started = await passkeyOptions(path, password.cookie);
    const refused = (await post(
      path,
      { intent: "passkey", credential: JSON.stringify(attempt(started.options!)) },
      started.cookie!,
    )) as Response;
    expect(refused.status).toBe(302);
    expect(refused.headers.get("Location")).toBe(path);
    expect(cookieHeader(refused)).not.toMatch(/id_staff_session=/);
  }
  expect(await staffRows(staff.sub)).toEqual([]);
  expect(await staffRows(other.sub)).toEqual([]);

  // The step is still good: the staff member's own passkey opens the session.
  const started = await passkeyOptions(path, password.cookie);
  const opened = (await post(
    path,
    { intent: "passkey", credential: JSON.stringify(staff.passkey.get(started.options!)) },
    started.cookie!,
  )) as Response;
  expect(cookieHeader(opened)).toMatch(/id_staff_session=/);
});

test("a member outside the staff group with a passkey gets no passkey step; one removed between the steps no session", async () => {
  offsetMs = 0;
  const member = await createNamedMember(app.standInPort, {
    email: `passkey-not-staff-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  await withPasskey(member);
  const path = signInPath("ja");
  const refused = await passwordStep(member, path);
  expect((refused.response as { init: ResponseInit }).init.status).toBe(403);
  expect(refused.cookie).toBe("");

  const staff = await staffWithPasskey("staff-passkey-removed");
  const password = await passwordStep(staff, path);
  const started = await passkeyOptions(path, password.cookie);
  const sdk = await connectToStandIn(app.standInPort);
  try {
    await sdk.cognito.send(
      new AdminRemoveUserFromGroupCommand({ UserPoolId: sdk.userPoolId, Username: staff.email, GroupName: "admin" }),
    );
  } finally {
    sdk.destroy();
  }
  const answered = (await post(
    path,
    { intent: "passkey", credential: JSON.stringify(staff.passkey.get(started.options!)) },
    started.cookie!,
  )) as Response;
  expect(answered.headers.get("Location")).toBe(path);
  expect(cookieHeader(answered)).not.toMatch(/id_staff_session=/);
  expect(await staffRows(staff.sub)).toEqual([]);
  expect(await staffRows(member.sub)).toEqual([]);
  // The step cookie is unused from here: it was cleared with the refusal.
  expect(answered.headers.getSetCookie().some(clearsPasskeyStep)).toBe(true);
});

test("tokens of anyone but the password step's staff member are revoked and refused", async () => {
  offsetMs = 0;
  const staff = await staffWithPasskey("staff-passkey-sub");
  const other = await staffWithPasskey("staff-passkey-sub-other");
  // A step naming one staff member's sub with another's challenge: only a sealing bug could make one, so the domain
  // is called directly.
  const challenge = await app.services.identity.staffBeginPasskeySignIn(other.email);
  if (challenge.kind !== "webAuthn") throw new Error("no WEB_AUTHN challenge");
  const credential = other.passkey.get(JSON.parse(challenge.requestOptionsJson) as never);
  const step = {
    email: other.email,
    sub: staff.sub,
    challenge: { username: challenge.username, session: challenge.session },
    expiresAt: Date.now() + MINUTE_MS,
  };
  await expect(completeStaffPasskeySignIn(app.services, { step, credential: { ...credential } })).rejects.toMatchObject(
    {
      code: "passkeyRefused",
    },
  );
  expect(await staffRows(staff.sub)).toEqual([]);
  expect(await staffRows(other.sub)).toEqual([]);
});
