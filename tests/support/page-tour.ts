import { type APIRequestContext, type Browser, type BrowserContext, expect } from "@playwright/test";
import { latestCodeFor } from "./mailbox";
import { createTestMember } from "./test-members";

/**
 * The member-facing pages a person sees, for the layout checks (tests/e2e/layout.spec.ts) and the screenshots
 * (tests/screenshots/): what a visitor sees, what a signed-in member sees, and the screens only a flow reaches
 * (the device-limit screen, sign-up's account step), each reached through the stand-in and plain HTTP posts
 * rather than by walking the forms.
 */
export const VISITOR_PAGES = [
  "/",
  "/docs/terms-of-use/",
  "/docs/terms-of-use/shinkenchiku-id/",
  "/docs/privacy-policy/",
  "/auth/sign-in/",
  "/auth/sign-up/",
  "/auth/forgot-password/",
  "/admin/sign-in/",
  "/no-such-page/",
  // The pages of mailed links, as a link that is no longer good shows them.
  "/email-update/not-a-token/",
  "/sign-in-alert/not-a-token/",
  "/newsletter/unsubscribe/not-a-token/",
];

export const MEMBER_PAGES = [
  "/my/profile/",
  "/my/profile/edit/",
  "/my/email/edit/",
  "/my/password/edit/",
  "/my/devices/",
  "/my/security/",
  "/my/security/authenticator/",
  "/my/withdrawal/",
  "/my/reauthentication/",
  "/my/data/",
  "/auth/sign-out/",
];

/** Japanese (unprefixed) and English. */
export const LOCALE_PREFIXES = ["", "/en"] as const;

/** The device limit of the e2e and screenshot servers (the app's default). */
const DEVICE_LIMIT = 3;

type Member = { email: string; password: string };

/** Posts the sign-in form as a browser without JavaScript would; the context's pages then hold the session. */
export async function postSignIn(request: APIRequestContext, member: Member) {
  const response = await request.post("/auth/sign-in/", {
    form: { intent: "sign-in", email: member.email, password: member.password },
    maxRedirects: 0,
  });
  expect(response.status(), `sign-in of ${member.email}`).toBe(302);
}

/** A new member, created in the stand-in, signed in within the given browser context. */
export async function signInNewMember(context: BrowserContext, standInPort: number, label: string) {
  const member = await createTestMember(standInPort, label);
  await postSignIn(context.request, member);
  // The "signed in" toast is read by this request, so no page of the tour shows it half faded.
  await context.request.get("/my/profile/");
  return member;
}

/**
 * Leaves `context` on hold at the device-limit screen (GET /auth/sign-in/ shows it): a member who already has the
 * limit's number of signed-in browsers (throwaway contexts) signs in once more.
 */
export async function holdAtDeviceLimit(browser: Browser, context: BrowserContext, standInPort: number) {
  const member = await createTestMember(standInPort, "device-limit");
  for (let index = 0; index < DEVICE_LIMIT; index++) {
    const other = await browser.newContext();
    await postSignIn(other.request, member);
    await other.close();
  }
  await postSignIn(context.request, member);
}

/** Brings `context` to sign-up's account step (profile and questionnaire) with a new address. */
export async function reachSignUpAccountStep(context: BrowserContext, label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const credentials = await context.request.post("/auth/sign-up/", {
    form: {
      intent: "credentials",
      email,
      password: "a-long-enough-password",
      agreeIdTerms: "on",
      agreeDataTerms: "on",
      agreePrivacy: "on",
    },
    maxRedirects: 0,
  });
  expect(credentials.status(), "sign-up credentials").toBe(302);
  const code = await latestCodeFor(context.request, email);
  const confirmed = await context.request.post("/auth/sign-up/", { form: { intent: "code", code }, maxRedirects: 0 });
  expect(confirmed.status(), "sign-up code").toBe(302);
}
