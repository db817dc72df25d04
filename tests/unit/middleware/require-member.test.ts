import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import type { SignedInStaff } from "~/domain/sessions/staff-sessions.server";
import type { StaffStanding } from "~/domain/directory/staff-group-check.server";
import { memberContext, servicesContext, staffContext, staffStandingContext } from "~/router-context.server";
import { redirectUnlessStaffSession, requireAdmin, requireMember } from "~/middleware/require-member.server";
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

function contextWith(signedIn: SignedInMember | null) {
  const context = new RouterContextProvider();
  // The verbs read the admin group from the configuration only.
  context.set(servicesContext, { config: parseConfig({ APP_MODE: "dev", ADMIN_GROUP: "staff" }) } as AppServices);
  context.set(memberContext, signedIn);
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
  expect(requireMember(contextWith(member), new URL("http://localhost/my/profile/"))).toBe(member);
});

test("requireMember sends a visitor to sign-in in the page's language, with the way back", () => {
  const url = new URL(`http://localhost${pathFor("my-profile-edit", "en")}`);
  expect(thrownBy(() => requireMember(contextWith(null), url))).toEqual({
    status: 302,
    location: `${pathFor("auth-sign-in", "en")}?to=my-profile-edit`,
  });
});

const adminPage = `http://localhost${pathFor("admin", "en")}`;

const staff: SignedInStaff = {
  sub: "sub-1",
  email: "staff@example.jp",
  groups: ["staff"],
  sessionId: "staff-session-1",
  accessToken: "staff-token",
  passwordVerifiedAt: new Date(0),
};

/**
 * A request's context with a member session and a staff session of its own (either may be missing).
 * `staffStanding`: what the staff layout's middleware read from the member directory (readStaffStanding).
 */
function staffContextWith(
  signedIn: { member?: SignedInMember; staff?: SignedInStaff },
  staffStanding: StaffStanding | null = "staff",
) {
  const context = contextWith(signedIn.member ?? null);
  context.set(staffContext, signedIn.staff ?? null);
  context.set(staffStandingContext, staffStanding);
  return context;
}

test("requireAdmin gives the staff session's member of the configured admin group whom the directory's recent reading has in it", () => {
  expect(requireAdmin(staffContextWith({ staff }), new URL(adminPage))).toBe(staff);
});

test("requireAdmin refuses a staff session whose token names the group but the directory no longer does (403), or without a recent reading (503)", () => {
  const url = new URL(adminPage);
  expect(thrownBy(() => requireAdmin(staffContextWith({ staff }, "not-staff"), url)).status).toBe(403);
  expect(thrownBy(() => requireAdmin(staffContextWith({ staff }, "unverified"), url)).status).toBe(503);
  expect(thrownBy(() => requireAdmin(staffContextWith({ staff }, null), url)).status).toBe(503);
});

test("requireAdmin sends whoever has no staff session to the staff sign-in, a member of the admin group too", () => {
  const admin = { ...member, groups: ["staff"] };
  for (const signedIn of [{}, { member: admin }]) {
    expect(thrownBy(() => requireAdmin(staffContextWith(signedIn), new URL(adminPage)))).toEqual({
      status: 302,
      location: `${pathFor("admin-sign-in", "en")}?to=admin`,
    });
  }
});

test("requireAdmin sends a visitor to a member's page or a search to the staff sign-in with that very page as the way back", () => {
  for (const page of [
    `${pathFor("admin-user", "ja", { sub: "0b7e8f52-4b1a-4c8e-9a51-2f9d3c1e6a70" })}`,
    `${pathFor("admin", "ja")}?q=yamada`,
  ]) {
    expect(thrownBy(() => requireAdmin(staffContextWith({}), new URL(`http://localhost${page}`)))).toEqual({
      status: 302,
      location: `${pathFor("admin-sign-in", "ja")}?${new URLSearchParams({ to: page }).toString()}`,
    });
  }
});

test("requireAdmin forbids a staff session whose member is outside the admin group", () => {
  const outside = { ...staff, groups: ["admin"] };
  expect(thrownBy(() => requireAdmin(staffContextWith({ staff: outside }), new URL(adminPage)))).toEqual({
    status: 403,
    location: null,
  });
});

test("redirectUnlessStaffSession lets a staff session through and redirects a member session alone", () => {
  expect(() => redirectUnlessStaffSession(staffContextWith({ staff }), new URL(adminPage))).not.toThrow();
  expect(thrownBy(() => redirectUnlessStaffSession(staffContextWith({ member }), new URL(adminPage)))).toEqual({
    status: 302,
    location: `${pathFor("admin-sign-in", "en")}?to=admin`,
  });
});
