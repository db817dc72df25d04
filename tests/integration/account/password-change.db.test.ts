import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { memberSessions } from "../../../db/schema";
import { createAppServices } from "~/composition-root.server";
import { parseConfig } from "~/config.server";
import { resolvePageSession } from "~/domain/sessions/page-sessions.server";
import { openRefreshToken } from "~/domain/sessions/refresh-tokens.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import * as passwordPage from "~/routes/member/my-password-edit";
import { pathFor } from "~/routing/route-table";
import type { StandIns } from "~/server/start-server";
import type { AppServices } from "~/services.server";
import { routeCalls, settle } from "../../support/route-calls";
import { MEMBER_PASSWORD, memberAsSeenNow, signInMember, signedInMember } from "../../support/signed-in-members";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { makeTempDir } from "../../support/temp-dir";
import { totpCode, wrongTotpCode } from "../../support/totp-codes";
import { useTestDatabase } from "../../support/test-database";

// The password change of a member with 2-step verification, through the page's route module on real parts: the
// stand-in's ChangePassword, global sign-out and SOFTWARE_TOKEN_MFA challenge over HTTP, PGlite (or PostgreSQL).
const ORIGIN = "http://localhost:3993";
const NEW_PASSWORD = "lantern-orchard-velvet-42";
const temp = makeTempDir("password-change");
const database = useTestDatabase("password-change-db");
let stack: StandIns;
let services: AppServices;
const calls = routeCalls(ORIGIN, () => services);
const PAGE = pathFor("my-password-edit", "ja");

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  const config = parseConfig({ ...stack.env, APP_MODE: "dev", APP_ORIGIN: ORIGIN, DATA_DIR: temp.dir });
  services = createAppServices(config, database().db);
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  temp.remove();
});

/**
 * A member signed in on two browsers who then turned on 2-step verification on the first (its code used up the
 * current time step); the second signed in before, so it needed no code.
 */
async function memberWithTwoStep(label: string) {
  const member = await signedInMember(services, label);
  const other = await signInMember(services, member.email);
  const secret = await startAuthenticatorSetup(services, { accessToken: member.accessToken });
  await turnOnTwoStep(services, { ...member, clientIp: "127.0.0.1", locale: "ja", code: totpCode(secret) });
  return { member: await memberAsSeenNow(services, member), other, secret };
}

async function view(member: SignedInMember) {
  const request = calls.get(PAGE);
  return passwordPage.loader(calls.args(request, await calls.context(request, member)));
}

type FormReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit };

async function post(member: SignedInMember, fields: Record<string, string>) {
  const request = calls.post(PAGE, { currentPassword: MEMBER_PASSWORD, newPassword: NEW_PASSWORD, ...fields });
  return settle(passwordPage.action(calls.args(request, await calls.context(request, member))));
}

/** The refresh token the session row holds, tried at Cognito: what the browser needs once its access token expires. */
async function sessionRefreshes(sessionId: string): Promise<boolean> {
  const [row] = await database().db.select().from(memberSessions).where(eq(memberSessions.id, sessionId));
  const refreshToken = openRefreshToken(row!, services.config.sessionSecrets);
  if (!row || row.revokedAt || !refreshToken) return false;
  return services.identity.refresh(refreshToken).then(
    () => true,
    () => false,
  );
}

const passwordSignIn = (email: string, password: string) =>
  services.identity.beginSignIn({ email, password }).then(
    (answer) => answer.kind,
    () => "refused",
  );

test("a member without 2-step verification is not asked for a code", async () => {
  const member = await signedInMember(services, "no-code");
  expect((await view(member)).asksCode).toBe(false);
});

test("with 2-step verification the change asks for the app's code, refused before Cognito when missing or malformed", async () => {
  const { member } = await memberWithTwoStep("code-missing");
  expect((await view(member)).asksCode).toBe(true);

  const missing = (await post(member, {})) as FormReply;
  expect(missing.init.status).toBe(400);
  expect(missing.data.result.error?.code?.[0]).toBe("確認コードを入力してください");
  const malformed = (await post(member, { code: "12a456" })) as FormReply;
  expect(malformed.init.status).toBe(400);
  expect(malformed.data.result.error?.code).toHaveLength(1);
  // Nothing changed: the old password still leads to the code step, the new one is refused.
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("softwareTokenRequired");
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("refused");
  expect(await sessionRefreshes(member.sessionId)).toBe(true);
});

test("with the app's code the browser is signed in again: its refresh token works after the change, other sessions end", async () => {
  const { member, other, secret } = await memberWithTwoStep("code-right");
  const changed = (await post(member, { code: totpCode(secret, { steps: 1 }) })) as Response;
  expect(changed.status).toBe(302);
  expect(changed.headers.get("Location")).toBe(pathFor("my-profile", "ja"));
  expect(changed.headers.getSetCookie().join("\n")).toMatch(/id_session=[^;]/);

  // Its access token will expire; the refresh token of the new sign-in keeps the browser signed in after that.
  expect(await sessionRefreshes(member.sessionId)).toBe(true);
  expect((await resolvePageSession(services, other)).kind).not.toBe("member");
  expect(await sessionRefreshes(other.sessionId)).toBe(false);
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("softwareTokenRequired");
});

test("a code Cognito refuses after the change: the password is changed, this browser too is signed out and told so", async () => {
  const { member, other, secret } = await memberWithTwoStep("code-wrong");
  const answer = (await post(member, { code: wrongTotpCode(secret) })) as Response;
  expect(answer.status).toBe(302);
  expect(answer.headers.get("Location")).toBe(pathFor("auth-sign-in", "ja"));
  const setCookies = answer.headers.getSetCookie().join("\n");
  expect(setCookies).toMatch(/id_session=;/);
  expect(setCookies).not.toContain(NEW_PASSWORD);

  expect((await resolvePageSession(services, member)).kind).not.toBe("member");
  expect((await resolvePageSession(services, other)).kind).not.toBe("member");
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("softwareTokenRequired");
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("refused");
});
