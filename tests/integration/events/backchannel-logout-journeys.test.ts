import { type JWTPayload, decodeJwt, decodeProtectedHeader } from "jose";
import { expect, test } from "vitest";
import { SIBLING_SERVICES } from "~/config.server";
import { createApiStaff } from "../../support/staff-api-access";
import { type TestServer, useTestServers } from "../../support/session-servers";
import { post, sessionPair, signedIn, staffSignedIn } from "../../support/session-http";
import {
  type CapturedSiblingDelivery,
  eventCaptureDirectory,
  listCapturedDeliveries,
} from "../../support/stand-ins/event-capture";
import { createTestMember } from "../../support/test-members";

/**
 * Issue 47's back-channel logout journeys, JavaScript off (plain form posts to the production build): deactivating a
 * device, signing out, a password change, a staff disable and a cancellation each end sessions, and for each ended
 * session every sibling service's logout URI receives a logout_token (OpenID Connect Back-Channel Logout 1.0) naming
 * it: `sid` the origin_jti of the access tokens the sibling holds for that session, `sub` the member. The preview
 * server's event capture receives them, checks each with jose against the app's /.well-known/jwks.json and files it
 * in $DATA_DIR/event-capture/deliveries.jsonl, which the test reads.
 */
const servers = useTestServers({ main: {} });
const main = (): TestServer => servers.main;

/** What the session cookie carries (base64 JSON before the signature): the session's id and its access token. */
function sessionOf(cookie: string): { id: string; sub: string; sid: string } {
  const raw = decodeURIComponent(sessionPair(cookie).slice("id_session=".length));
  const value = JSON.parse(Buffer.from(raw.slice(0, raw.lastIndexOf(".")), "base64").toString("utf8")) as {
    sid: string;
    at: string;
  };
  const claims = decodeJwt(value.at) as { sub: string; origin_jti: string };
  return { id: value.sid, sub: claims.sub, sid: claims.origin_jti };
}

/** The data directory the server runs on, as its banner tells another instance to use. */
const dataDirOf = (server: TestServer) => /DATA_DIR=(\S+)/.exec(server.process.stdout())![1]!;

interface ReceivedLogout {
  delivery: CapturedSiblingDelivery;
  header: Record<string, unknown>;
  claims: JWTPayload & { sid?: string; events?: Record<string, unknown> };
}

/** Every logout token the capture received for this member, whichever service it was for. */
async function logoutTokensFor(sub: string): Promise<ReceivedLogout[]> {
  const deliveries = await listCapturedDeliveries(eventCaptureDirectory(dataDirOf(main())), Number.POSITIVE_INFINITY);
  return deliveries
    .filter((delivery) => delivery.channel === "logout")
    .map((delivery) => {
      const token = new URLSearchParams(delivery.body).get("logout_token")!;
      return { delivery, header: decodeProtectedHeader(token), claims: decodeJwt(token) };
    })
    .filter((received) => received.claims.sub === sub);
}

/**
 * Waits until every service has received a logout token for each of `sids`, then checks that the member got no
 * other (a session that did not end is not named), and that each token is one a sibling accepts.
 */
async function expectLogoutTokensNaming(sub: string, sids: string[]) {
  const expected = sids.flatMap((sid) => SIBLING_SERVICES.map((service) => `${service} ${sid}`)).sort();
  const named = async () =>
    [
      ...new Set((await logoutTokensFor(sub)).map(({ delivery, claims }) => `${delivery.service} ${claims.sid}`)),
    ].sort();
  await expect.poll(named).toEqual(expected);
  for (const { delivery, header, claims } of await logoutTokensFor(sub)) {
    // The capture verified the signature against the published keys, the issuer, the audience and the type.
    expect([delivery.verdict, delivery.reason]).toEqual(["verified", null]);
    expect(header).toMatchObject({ alg: "ES256", typ: "logout+jwt" });
    expect(claims).toMatchObject({
      iss: main().origin,
      aud: delivery.service,
      sub,
      jti: delivery.eventId,
      events: { "http://schemas.openid.net/event/backchannel-logout": {} },
    });
    expect(claims.exp! - claims.iat!).toBe(120);
    expect(claims).not.toHaveProperty("nonce");
  }
}

test("deactivating a device: its session's sid reaches every sibling, the browser that did it is not named", async () => {
  const member = await createTestMember(main().standInPort, "bcl-device");
  const here = await signedIn(main(), member);
  const other = await signedIn(main(), member);
  const deactivated = await post(main(), "/my/devices/", { intent: "deactivate", device: sessionOf(other).id }, here);
  expect(deactivated.status).toBe(302);
  await expectLogoutTokensNaming(sessionOf(here).sub, [sessionOf(other).sid]);
});

test("logging out: the browser's own session is named", async () => {
  const member = await createTestMember(main().standInPort, "bcl-sign-out");
  const cookie = await signedIn(main(), member);
  expect((await post(main(), "/auth/sign-out/", {}, cookie)).status).toBe(302);
  await expectLogoutTokensNaming(sessionOf(cookie).sub, [sessionOf(cookie).sid]);
});

test("a password change: the other browser's session and this browser's sign-in before the change are named", async () => {
  const member = await createTestMember(main().standInPort, "bcl-password");
  const here = await signedIn(main(), member);
  const other = await signedIn(main(), member);
  const changed = await post(
    main(),
    "/my/password/edit/",
    { currentPassword: member.password, newPassword: `new-${crypto.randomUUID()}` },
    here,
  );
  expect(changed.status).toBe(302);
  await expectLogoutTokensNaming(sessionOf(here).sub, [sessionOf(here).sid, sessionOf(other).sid]);
});

test("a staff disable on the member's page: each of the member's sessions is named", async () => {
  const member = await createTestMember(main().standInPort, "bcl-disable");
  const sessions = [await signedIn(main(), member), await signedIn(main(), member)].map(sessionOf);
  const staff = await staffSignedIn(main(), await createApiStaff(main().process, "bcl-disable"));
  const disabled = await post(main(), `/admin/users/${sessions[0]!.sub}/`, { intent: "disable" }, staff);
  expect([disabled.status, disabled.headers.get("Location")]).toEqual([302, `/admin/users/${sessions[0]!.sub}/`]);
  await expectLogoutTokensNaming(
    sessions[0]!.sub,
    sessions.map((session) => session.sid),
  );
});

test("a cancellation: the member's session is named", async () => {
  const member = await createTestMember(main().standInPort, "bcl-cancel");
  const cookie = await signedIn(main(), member);
  const cancelled = await post(
    main(),
    "/my/withdrawal/",
    { intent: "submit", reason: "noLongerNeeded", agreeDisclaimer: "on", password: member.password },
    cookie,
  );
  expect(cancelled.status).toBe(302);
  await expectLogoutTokensNaming(sessionOf(cookie).sub, [sessionOf(cookie).sid]);
});
