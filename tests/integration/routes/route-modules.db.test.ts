import { eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { findProfile } from "~/domain/account/profile.server";
import { memberProfiles } from "~db/schema";
import { RESOURCES } from "~/i18n/resources";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { type MailboxEntry, memberContext, requestInfoContext, servicesContext } from "~/router-context.server";
import * as userAvailability from "~/routes/api/user-availability";
import * as emailUpdate from "~/routes/default/email-update";
import * as emailEdit from "~/routes/member/my-email-edit";
import * as profile from "~/routes/member/my-profile";
import * as profileEdit from "~/routes/member/my-profile-edit";
import { pathFor } from "~/routing/route-table";
import { bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// Loaders and actions called directly, with a context of real services: PGlite (or PostgreSQL in CI), the Cognito
// stand-in over HTTP and the SMTP capture. No HTTP server: what a route answers is what these calls return.
const ORIGIN = "http://localhost:3998";
const PASSWORD = "correct-horse-battery";
const app = useTestServices({ label: "route-modules", origin: ORIGIN });

async function createMember(label: string): Promise<SignedInMember> {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  const { sub } = await app.services.identity.getUser(email);
  return {
    sub,
    email,
    familyName: null,
    givenName: null,
    profile: null,
    groups: [],
    sessionId: crypto.randomUUID(),
    accessToken: "",
    passwordVerifiedAt: new Date(),
  };
}

/** What an action answers with `data(…, init)`. */
type DataReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit | null };

/** What the HTTP server and the root middleware put in a request's context: services, request info, language, member. */
async function contextFor(request: Request, member: SignedInMember | null) {
  const context = new RouterContextProvider();
  context.set(servicesContext, app.services);
  context.set(requestInfoContext, { requestId: "route-modules", nonce: "", clientIp: "192.0.2.10" });
  context.set(memberContext, member);
  await i18nextMiddleware({ request, context, params: {}, unstable_pattern: "" } as never, async () => new Response());
  return context;
}

function get(path: string) {
  return new Request(`${ORIGIN}${path}`);
}

function post(path: string, fields: Record<string, string>) {
  return new Request(`${ORIGIN}${path}`, { method: "POST", body: new URLSearchParams(fields) });
}

function routeArgs(request: Request, context: RouterContextProvider, params: Record<string, string> = {}) {
  return { request, url: new URL(request.url), context, params } as never;
}

async function newestMailTo(address: string): Promise<MailboxEntry | undefined> {
  const entries = await listMailboxEntries(mailboxDirectory(app.dataDir));
  return entries.find((entry) => entry.kind === "mail" && entry.to.includes(address));
}

test("the profile page's loader shows the stored profile of the member in the context", async () => {
  const member = await createMember("profile");
  await app.db.insert(memberProfiles).values({
    sub: member.sub,
    familyName: "山田",
    givenName: "太郎",
    birthYear: 1980,
    country: "JP",
    preferredLanguage: "ja",
  });
  const request = get(pathFor("my-profile", "ja"));
  // As the session check leaves it: the member with the stored profile (sessions/sessions-and-devices.db.test.ts
  // proves that read).
  const signedIn = { ...member, profile: await findProfile(app.db, member.sub) };
  const data = await profile.loader(routeArgs(request, await contextFor(request, signedIn)));
  expect(data).toMatchObject({
    subject: member.sub,
    email: member.email,
    details: { familyName: "山田", birthYear: 1980, country: "日本", preferredLanguage: "日本語" },
  });
});

test("the profile page's loader sends a visitor to sign-in with the way back", async () => {
  const request = get(pathFor("my-profile", "en"));
  const thrown = await profile
    .loader(routeArgs(request, await contextFor(request, null)))
    .catch((error: unknown) => error);
  expect(thrown).toBeInstanceOf(Response);
  expect((thrown as Response).status).toBe(302);
  expect((thrown as Response).headers.get("Location")).toBe(`${pathFor("auth-sign-in", "en")}?to=my-profile`);
});

test("the profile edit action answers bad input with 400 and the field errors in the page's language, and stores nothing", async () => {
  const member = await createMember("profile-edit");
  for (const locale of ["ja", "en"] as const) {
    const request = post(pathFor("my-profile-edit", locale), {
      familyName: "",
      givenName: "太郎",
      birthYear: "not a year",
    });
    const answer = await profileEdit.action(routeArgs(request, await contextFor(request, member)));
    const { data, init } = answer as unknown as DataReply;
    expect(init?.status).toBe(400);
    // Translated by the action: the page sends no error texts for the browser to translate them with.
    expect(data.result.error?.familyName).toEqual([RESOURCES[locale].forms.validation.required]);
    expect(data.result.error?.birthYear).toEqual([RESOURCES[locale].forms.validation.birthYear]);
  }
  const rows = await app.db.select().from(memberProfiles).where(eq(memberProfiles.sub, member.sub));
  expect(rows).toEqual([]);
});

test("an e-mail change goes from the edit action through the mailed link to the confirmation action", async () => {
  const member = await createMember("email");
  const newEmail = `new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  const editRequest = post(pathFor("my-email-edit", "en"), { email: newEmail });
  const sent = await emailEdit.action(routeArgs(editRequest, await contextFor(editRequest, member)));
  expect(sent).toBeInstanceOf(Response);
  expect((sent as Response).headers.get("Location")).toBe(`${pathFor("my-email-edit", "en")}?sent`);

  const mail = await newestMailTo(newEmail);
  expect(mail?.subject).toBe("Confirm your e-mail address change");
  const token = new RegExp(`^${ORIGIN}/en/email-update/([^/\\s]+)/$`, "m").exec(mail?.text ?? "")?.[1];
  expect(token).toBeTruthy();

  const pageRequest = get(pathFor("email-update", "en", { token: token! }));
  const page = await emailUpdate.loader(routeArgs(pageRequest, await contextFor(pageRequest, null), { token: token! }));
  expect(page.data.state).toBe("confirm");
  expect(page.init?.status).toBe(200);

  const confirmRequest = post(pathFor("email-update", "en", { token: token! }), {});
  const confirmed = await emailUpdate.action(
    routeArgs(confirmRequest, await contextFor(confirmRequest, null), { token: token! }),
  );
  expect(confirmed).toBeInstanceOf(Response);
  expect((confirmed as Response).headers.get("Location")).toBe(pathFor("auth-sign-in", "en"));
  expect((await app.services.identity.getUser(member.sub)).email).toBe(newEmail);
});

test("the e-mail change link without its token, or with a spent one, says the link is invalid: 404 and 410", async () => {
  const missingRequest = get("/en/email-update/");
  const missing = await emailUpdate.loader(routeArgs(missingRequest, await contextFor(missingRequest, null)));
  expect(missing.data.state).toBe("incomplete");
  expect(missing.data.title).toBe("This link is invalid or has expired");
  expect(missing.init?.status).toBe(404);
  const postRequest = post("/en/email-update/", {});
  const posted = await emailUpdate.action(routeArgs(postRequest, await contextFor(postRequest, null)));
  expect(posted).toMatchObject({ data: { state: "incomplete" }, init: { status: 404 } });

  const unknownPath = `/email-update/${"x".repeat(43)}/`;
  const unknownRequest = get(unknownPath);
  const unknown = await emailUpdate.loader(
    routeArgs(unknownRequest, await contextFor(unknownRequest, null), { token: "x".repeat(43) }),
  );
  expect(unknown.data.state).toBe("expired");
  expect(unknown.data.title).toBe("リンクが無効か、有効期限が切れています");
  expect(unknown.init?.status).toBe(410);
});

test("the e-mail change action puts the member's own address on the field with 400", async () => {
  const member = await createMember("same");
  const request = post(pathFor("my-email-edit", "ja"), { email: member.email });
  const answer = await emailEdit.action(routeArgs(request, await contextFor(request, member)));
  const { data, init } = answer as unknown as DataReply;
  expect(init?.status).toBe(400);
  expect(data.result.error?.email).toEqual([RESOURCES.ja.emailChange.errors.sameAddress]);
});

test("the availability API handler answers from the bearer token and Cognito", async () => {
  const member = await createMember("api");
  const other = await createMember("api-other");
  const sdk = await connectToStandIn(app.standInPort);
  const { accessToken } = await bearerTokensFor(sdk, member.email, PASSWORD).finally(() => sdk.destroy());
  const request = new Request(`${ORIGIN}/api/user-availability`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json", "Accept-Language": "en" },
    body: JSON.stringify({ email: other.email }),
  });
  const response = await userAvailability.action(routeArgs(request, await contextFor(request, null)));
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ email: other.email, available: false });
});
