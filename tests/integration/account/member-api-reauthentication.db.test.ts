import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
import { emailChangeTokens, memberSessions } from "~db/schema";
import { ErrorEnvelopeSchema } from "~/api/contract";
import { REAUTHENTICATION_WINDOW_MS } from "~/domain/account/reauthentication.server";
import * as emailUpdates from "~/routes/api/email-updates";
import * as userDevice from "~/routes/api/user-device";
import * as userRegistration from "~/routes/api/user-registration";
import type { Clock } from "~/services.server";
import { type BearerTokens, type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { routeCalls } from "../../support/route-calls";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";
import { useTestServices } from "../../support/test-services";

// The member API's account-changing calls need a sign-in (the bearer token's auth_time) within 10 minutes, by the
// app's clock, which is the test's: the stand-in's token stays valid (jose checks its expiry by the real time) while
// the app counts 11 minutes since the sign-in. A token lifted from the shared cookie, or a sibling's session left
// refreshing all day, cannot change the address or claim a device key. The real parts: the Cognito stand-in over
// HTTP (tokens from the members' public client, as a sibling gets them), the SMTP capture, PGlite or PostgreSQL; the
// route modules are called as the HTTP server calls them.
const ORIGIN = "http://localhost:3993";
const MINUTE_MS = 60 * 1000;
let sdk: StandInSdk;
let current = new Date();
const clock: Clock = { now: () => current };
const app = useTestServices({ label: "member-api-reauthentication", origin: ORIGIN, clock });
const calls = routeCalls(ORIGIN, () => app.services);

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});

afterAll(() => {
  sdk?.destroy();
});

type ApiModule = { action: (args: never) => Promise<Response> };

/** The app's clock `ms` after the token's sign-in (its auth_time). */
function atSinceSignIn(tokens: BearerTokens, ms: number) {
  current = new Date(Number(decodeJwt(tokens.accessToken).auth_time) * 1000 + ms);
}

async function post(module: ApiModule, path: string, tokens: BearerTokens, body: unknown, params = {}) {
  const request = new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${tokens.accessToken}`,
      "Accept-Language": "en",
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
  const context = await calls.context(request, null);
  const response = await module.action({ request, context, params, pattern: "" } as never);
  const json: unknown = await response.json();
  return { status: response.status, code: ErrorEnvelopeSchema.safeParse(json).data?.error.code, json };
}

/** The mail filed for an address (the e-mail change link is sent before the call answers). */
async function mailsTo(email: string) {
  const entries = await listMailboxEntries(mailboxDirectory(app.dataDir));
  return entries.filter((entry) => entry.kind === "mail" && entry.to.includes(email));
}

async function signedInMember(label: string) {
  const member = await createTestMember(app.standInPort, label);
  return { ...member, tokens: await bearerTokensFor(sdk, member.email, TEST_PASSWORD) };
}

test("POST /api/email-updates: 403 reauthentication_required 11 minutes after the sign-in, nothing mailed or stored; a recent sign-in's token is 202", async () => {
  const member = await signedInMember("api-reauth-email");
  const newEmail = `api-reauth-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  atSinceSignIn(member.tokens, 11 * MINUTE_MS);
  const refused = await post(emailUpdates, "/api/email-updates", member.tokens, { email: newEmail });
  expect(refused).toMatchObject({ status: 403, code: "reauthentication_required" });
  expect((refused.json as { error: { message: string } }).error.message).toMatch(/within the last 10 minutes/);
  const links = () => app.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.tokens.sub));
  expect(await links()).toEqual([]);
  expect(await mailsTo(newEmail)).toEqual([]);

  // The member signs in again (a new token, its own auth_time), and asks within the window.
  const fresh = await bearerTokensFor(sdk, member.email, TEST_PASSWORD);
  atSinceSignIn(fresh, REAUTHENTICATION_WINDOW_MS - MINUTE_MS);
  const requested = await post(emailUpdates, "/api/email-updates", fresh, { email: newEmail });
  expect(requested.status, JSON.stringify(requested.json)).toBe(202);
  expect(await links()).toHaveLength(1);
  expect(await mailsTo(newEmail)).toHaveLength(1);
});

test("POST /api/user-devices/{key}: 403 reauthentication_required 11 minutes after the sign-in, no device recorded; a recent sign-in's token is 201", async () => {
  const member = await signedInMember("api-reauth-device");
  const key = `sibling-${crypto.randomUUID()}`;
  const devices = () => app.db.select().from(memberSessions).where(eq(memberSessions.sub, member.tokens.sub));

  atSinceSignIn(member.tokens, 11 * MINUTE_MS);
  const body = { refreshToken: member.tokens.refreshToken };
  const refused = await post(userDevice, `/api/user-devices/${key}`, member.tokens, body, { id: key });
  expect(refused).toMatchObject({ status: 403, code: "reauthentication_required" });
  expect(await devices()).toEqual([]);

  atSinceSignIn(member.tokens, REAUTHENTICATION_WINDOW_MS - MINUTE_MS);
  const registered = await post(userDevice, `/api/user-devices/${key}`, member.tokens, body, { id: key });
  expect(registered.status, JSON.stringify(registered.json)).toBe(201);
  expect(registered.json).toMatchObject({ devices: [{ key, current: true }] });
});

test("POST /api/user-registration (the profile) needs no recent sign-in: it changes no credential and no address", async () => {
  const member = await signedInMember("api-reauth-profile");
  atSinceSignIn(member.tokens, 11 * MINUTE_MS);
  const saved = await post(userRegistration, "/api/user-registration", member.tokens, {
    familyName: "Tanaka",
    givenName: "Hanako",
    birthYear: 1990,
    country: "JP",
    prefecture: "Tokyo",
    occupation: "architect",
    organization: "Tanaka Sekkei",
    preferredLanguage: "en",
    q1: "magazine",
    q2: ["content"],
    q3: ["web"],
  });
  expect(saved.status, JSON.stringify(saved.json)).toBe(200);
});
