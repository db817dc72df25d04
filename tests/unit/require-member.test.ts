import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import type { StaffStanding } from "~/domain/directory/staff-group-check.server";
import { memberContext, servicesContext, staffStandingContext } from "~/router-context.server";
import { redirectUnlessSignedIn, requireAdmin, requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import type { AppServices } from "~/services.server";

const member: SignedInMember = {
  sub: "sub-1",
  email: "member@example.jp",
  familyName: null,
  givenName: null,
  profile: null,
  groups: [],
  sessionId: "session-1",
  accessToken: "token",
  passwordVerifiedAt: null,
};

/** `staffStanding`: what the staff layout's middleware read from the member directory (readStaffStanding). */
function contextWith(signedIn: SignedInMember | null, staffStanding: StaffStanding | null = null) {
  const context = new RouterContextProvider();
  // The verbs read the admin group from the configuration only.
  context.set(servicesContext, { config: parseConfig({ APP_MODE: "dev", ADMIN_GROUP: "staff" }) } as AppServices);
  context.set(memberContext, signedIn);
  context.set(staffStandingContext, staffStanding);
  return context;
}

function thrownBy(verb: () => unknown) {
  try {
    verb();
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, location: thrown.headers.get("Location") };
    return { status: (thrown as { init?: ResponseInit | null }).init?.status, location: null };
  }
  throw new Error("the verb let the request through");
}

test("requireMember gives the signed-in member", () => {
  expect(requireMember(contextWith(member), new Request("http://localhost/my/profile/"))).toBe(member);
});

test("requireMember sends a visitor to sign-in in the page's language, with the way back", () => {
  const request = new Request(`http://localhost${pathFor("my-profile-edit", "en")}`);
  expect(thrownBy(() => requireMember(contextWith(null), request))).toEqual({
    status: 302,
    location: `${pathFor("auth-sign-in", "en")}?to=my-profile-edit`,
  });
});

const adminPage = `http://localhost${pathFor("admin", "en")}`;

test("requireAdmin gives a member of the configured admin group whom the directory's recent reading has in it", () => {
  const admin = { ...member, groups: ["staff"] };
  expect(requireAdmin(contextWith(admin, "staff"), new Request(adminPage))).toBe(admin);
});

test("requireAdmin refuses a member whose token names the group but the directory no longer does (403), or without a recent reading (503)", () => {
  const admin = { ...member, groups: ["staff"] };
  expect(thrownBy(() => requireAdmin(contextWith(admin, "not-staff"), new Request(adminPage))).status).toBe(403);
  expect(thrownBy(() => requireAdmin(contextWith(admin, "unverified"), new Request(adminPage))).status).toBe(503);
  expect(thrownBy(() => requireAdmin(contextWith(admin, null), new Request(adminPage))).status).toBe(503);
});

test("requireAdmin sends a visitor to sign-in in the page's language, with the way back", () => {
  expect(thrownBy(() => requireAdmin(contextWith(null), new Request(adminPage)))).toEqual({
    status: 302,
    location: `${pathFor("auth-sign-in", "en")}?to=admin`,
  });
});

test("requireAdmin sends a visitor to a member's page or a search to sign-in with that very page as the way back", () => {
  for (const page of [
    `${pathFor("admin-user", "ja", { sub: "0b7e8f52-4b1a-4c8e-9a51-2f9d3c1e6a70" })}`,
    `${pathFor("admin", "ja")}?q=yamada`,
  ]) {
    expect(thrownBy(() => requireAdmin(contextWith(null), new Request(`http://localhost${page}`)))).toEqual({
      status: 302,
      location: `${pathFor("auth-sign-in", "ja")}?to=${encodeURIComponent(page)}`,
    });
  }
});

test("requireAdmin sends a browser whose session expired or ended to /", () => {
  for (const cookie of ["id_session=ended.signature", "theme=dark; id_session=ended.signature"]) {
    const request = new Request(adminPage, { headers: { Cookie: cookie } });
    expect(thrownBy(() => requireAdmin(contextWith(null), request))).toEqual({ status: 302, location: "/" });
  }
  // Another cookie whose name merely ends the same is no session: that browser is a visitor.
  const visitor = new Request(adminPage, { headers: { Cookie: "old_id_session=x" } });
  expect(thrownBy(() => requireAdmin(contextWith(null), visitor)).location).toBe(
    `${pathFor("auth-sign-in", "en")}?to=admin`,
  );
});

test("requireAdmin forbids a member outside the admin group", () => {
  expect(thrownBy(() => requireAdmin(contextWith({ ...member, groups: ["admin"] }), new Request(adminPage)))).toEqual({
    status: 403,
    location: null,
  });
});

test("redirectUnlessSignedIn lets any member through and redirects only the signed out", () => {
  expect(() => redirectUnlessSignedIn(contextWith(member), new Request(adminPage))).not.toThrow();
  expect(thrownBy(() => redirectUnlessSignedIn(contextWith(null), new Request(adminPage)))).toEqual({
    status: 302,
    location: `${pathFor("auth-sign-in", "en")}?to=admin`,
  });
});
