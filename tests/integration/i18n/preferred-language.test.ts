import { beforeAll, expect, test } from "vitest";
import { cookieHeader, cookieHeaderAfter, setCookieNamed } from "../../support/cookie-jar";
import { get, post, signedIn } from "../../support/session-http";
import { type TestServer, useTestServers } from "../../support/session-servers";
import { createTestMember } from "../../support/test-members";
import { toastTextIn } from "../../support/toast-text";

/**
 * The profile's preferred language (spec: "for newsletter and default UI") over HTTP against the production build:
 * saving the profile form, and the UI language a sign-in lands in.
 */

// One member signs in from several fresh browsers here: more than the default limit of devices.
const servers = useTestServers({ main: { DEVICE_LIMIT: "10" } });
let main: TestServer;
beforeAll(() => {
  main = servers.main;
});

const PROFILE_FORM = {
  familyName: "田中",
  givenName: "花子",
  birthYear: "1990",
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  organization: "田中設計",
  preferredLanguage: "ja",
};

/** Posts the profile form and returns the toast the profile page then shows. */
async function saveProfile(cookie: string, fields: Record<string, string>): Promise<string | undefined> {
  const saved = await post(main, "/my/profile/edit/", fields, cookie);
  expect(saved.status).toBe(302);
  expect(saved.headers.get("Location")).toBe("/my/profile/");
  // The save's toast cookie replaces the one the sign-in left.
  const page = await get(main, "/my/profile/", cookieHeaderAfter(cookie, saved));
  return toastTextIn(await page.text());
}

test("a profile save says 'profile changed' when the member's details change, 'Changes are saved' otherwise", async () => {
  const cookie = await signedIn(main, await createTestMember(main.standInPort, "profile-toasts"));
  expect(await saveProfile(cookie, PROFILE_FORM)).toBe("会員情報を変更しました");
  expect(await saveProfile(cookie, { ...PROFILE_FORM, organization: "鈴木設計" })).toBe("会員情報を変更しました");
  // The preferred language alone is a setting.
  expect(await saveProfile(cookie, { ...PROFILE_FORM, organization: "鈴木設計", preferredLanguage: "en" })).toBe(
    "変更を保存しました",
  );
  expect(await saveProfile(cookie, { ...PROFILE_FORM, organization: "鈴木設計", preferredLanguage: "en" })).toBe(
    "変更を保存しました",
  );
});

test("signing in opens the target page in the profile's preferred language and remembers it for the root", async () => {
  const member = await createTestMember(main.standInPort, "prefers-english");
  await saveProfile(await signedIn(main, member), { ...PROFILE_FORM, preferredLanguage: "en" });

  // Another browser signs in on a Japanese page, sent there by a members-only page.
  const { response } = await postSignIn(member, "/auth/sign-in/?to=my-devices");
  expect(response.status).toBe(302);
  expect(response.headers.get("Location")).toBe("/en/my/devices/");
  const remembered = setCookieNamed(response, "i18n_redirected") ?? "";
  expect(remembered).toMatch(/^i18n_redirected=en;/);
  expect(remembered).toMatch(/; Max-Age=31536000(;|$)/);

  // A path of ours keeps its query; the home page is the default.
  expect((await postSignIn(member, `/auth/sign-in/?to=${encodeURIComponent("/my/profile/?from=mail")}`)).location).toBe(
    "/en/my/profile/?from=mail",
  );
  const home = await postSignIn(member, "/auth/sign-in/");
  expect(home.location).toBe("/en/");
  // The root follows the remembered language from now on, whatever the browser's.
  const root = await get(main, "/", cookieHeader(home.response));
  expect(root.status).toBe(302);
  expect(root.headers.get("Location")).toBe("/en/");
});

test("a member who prefers Japanese and signs in on an English page lands on the Japanese page", async () => {
  const member = await createTestMember(main.standInPort, "prefers-japanese");
  await saveProfile(await signedIn(main, member), PROFILE_FORM);
  const { response, location } = await postSignIn(member, "/en/auth/sign-in/?to=my-profile");
  expect(location).toBe("/my/profile/");
  expect(setCookieNamed(response, "i18n_redirected")).toMatch(/^i18n_redirected=ja;/);
});

test("without a saved profile the sign-in stays in the page's language and remembers nothing", async () => {
  const member = await createTestMember(main.standInPort, "no-profile");
  const { response, location } = await postSignIn(member, "/en/auth/sign-in/?to=my-profile");
  expect(location).toBe("/en/my/profile/");
  expect(setCookieNamed(response, "i18n_redirected")).toBeUndefined();
});

/** A sign-in from a fresh browser (no cookies) on the given sign-in URL. */
async function postSignIn(member: { email: string; password: string }, path: string) {
  const response = await post(main, path, { intent: "sign-in", ...member });
  return { response, location: response.headers.get("Location") };
}
