import { eq } from "drizzle-orm";
import { afterEach, expect, test } from "vitest";
import { memberSessions } from "~db/schema";
import { resolvePageSession } from "~/domain/sessions/page-sessions.server";
import { serverTokenOf } from "~/domain/sessions/server-tokens.server";
import { openRefreshToken } from "~/domain/sessions/refresh-tokens.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import * as passwordPage from "~/routes/member/my-password-edit";
import { pathFor } from "~/routing/route-table";
import { COGNITO_CALL_TIMEOUT_MS } from "~/integrations/cognito/cognito-client.server";
import { routeCalls, settle } from "../../support/route-calls";
import {
  MEMBER_PASSWORD,
  memberAsSeenNow,
  serverTokenFor,
  signInMember,
  signedInMember,
} from "../../support/signed-in-members";
import { getFault, resetHarness, setFault } from "../../support/stand-in-faults";
import { totpCode, wrongTotpCode } from "../../support/totp-codes";
import { useTestServices } from "../../support/test-services";

// The password change of a member with 2-step verification, through the page's route module on real parts: the
// stand-in's ChangePassword, global sign-out and SOFTWARE_TOKEN_MFA challenge over HTTP, PGlite (or PostgreSQL).
const ORIGIN = "http://localhost:3993";
const NEW_PASSWORD = "lantern-orchard-velvet-42";
const app = useTestServices({ label: "password-change", origin: ORIGIN });
const calls = routeCalls(ORIGIN, () => app.services);
const PAGE = pathFor("my-password-edit", "ja");

/**
 * A member signed in on two browsers who then turned on 2-step verification on the first (its code used up the
 * current time step); the second signed in before, so it needed no code.
 */
async function memberWithTwoStep(label: string) {
  const member = await signedInMember(app.services, label);
  const other = await signInMember(app.services, member.email);
  const token = await serverTokenFor(app.services, member);
  const secret = await startAuthenticatorSetup(app.services, { token });
  await turnOnTwoStep(app.services, { ...member, token, clientIp: "127.0.0.1", locale: "ja", code: totpCode(secret) });
  return { member: await memberAsSeenNow(app.services, member), other, secret };
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
  const [row] = await app.db.select().from(memberSessions).where(eq(memberSessions.id, sessionId));
  const refreshToken = openRefreshToken(row!, app.services.config.sessionSecrets);
  if (!row || row.revokedAt || !refreshToken) return false;
  return app.services.identity.refresh(refreshToken).then(
    () => true,
    () => false,
  );
}

const passwordSignIn = (email: string, password: string) =>
  app.services.identity.beginSignIn({ email, password }).then(
    (answer) => answer.kind,
    () => "refused",
  );

test("a member without 2-step verification is not asked for a code", async () => {
  const member = await signedInMember(app.services, "no-code");
  expect((await view(member)).asksCode).toBe(false);
});

test("with 2-step verification the change asks for the app's code, refused before Cognito when missing or malformed", async () => {
  const { member } = await memberWithTwoStep("code-missing");
  expect((await view(member)).asksCode).toBe(true);

  const missing = (await post(member, {})) as FormReply;
  expect(missing.init.status).toBe(400);
  expect(missing.data.result.error?.code?.[0]).toBe("認証コードを入力してください");
  const malformed = (await post(member, { code: "12a456" })) as FormReply;
  expect(malformed.init.status).toBe(400);
  expect(malformed.data.result.error?.code).toHaveLength(1);
  // Nothing changed: the old password still leads to the code step, the new one is refused.
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("softwareTokenRequired");
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("refused");
  expect(await sessionRefreshes(member.sessionId)).toBe(true);
});

test("with the app's code the password changes, other sessions end, and this browser signs in again at the code step", async () => {
  const { member, other, secret } = await memberWithTwoStep("code-right");
  const changed = (await post(member, { code: totpCode(secret, { steps: 1 }) })) as Response;
  expect(changed.status).toBe(302);
  // The code the change took cannot be used twice: this browser's sign-in with the new password waits at the code
  // step for the app's next one, its challenge in the step's cookie; the old session is over.
  expect(changed.headers.get("Location")).toBe(`${pathFor("auth-two-step", "ja")}?to=my-profile`);
  const setCookies = changed.headers.getSetCookie().join("\n");
  expect(setCookies).toMatch(/id_session=;/);
  expect(setCookies).toMatch(/id_code_step=[^;]/);
  expect(setCookies).not.toContain(NEW_PASSWORD);
  expect((await resolvePageSession(app.services, member)).kind).not.toBe("member");
  expect((await resolvePageSession(app.services, other)).kind).not.toBe("member");
  expect(await sessionRefreshes(other.sessionId)).toBe(false);
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("softwareTokenRequired");
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("refused");
});

test("after the change the session's server token is the new sign-in's: the authenticator set-up needs no new password step", async () => {
  const member = await signedInMember(app.services, "set-up-after-change");
  const kept = () =>
    serverTokenOf(app.db, { ...member, secrets: app.services.config.sessionSecrets }).then(
      (token) => token?.accessToken,
    );
  // The password sign-in kept one, which the change's global sign-out revokes at Cognito.
  const before = await kept();
  expect(before).toBeDefined();
  const changed = (await post(member, {})) as Response;
  expect(changed.status).toBe(302);
  const after = await kept();
  expect(after).toBeDefined();
  expect(after).not.toBe(before);
  const token = await serverTokenOf(app.db, { ...member, secrets: app.services.config.sessionSecrets });
  await expect(startAuthenticatorSetup(app.services, { token: token! })).resolves.toMatch(/^[A-Z2-7]+=*$/);
});

test("a wrong code changes nothing: it is checked before the password is, as a code on its field", async () => {
  const { member, other, secret } = await memberWithTwoStep("code-wrong");
  const answer = (await post(member, { code: wrongTotpCode(secret) })) as FormReply;
  expect(answer.init.status).toBe(400);
  expect(answer.data.result.error?.code).toHaveLength(1);
  // Before the change, not after it: the old password still works, every session goes on.
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("softwareTokenRequired");
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("refused");
  expect(await sessionRefreshes(member.sessionId)).toBe(true);
  expect(await sessionRefreshes(other.sessionId)).toBe(true);
});

// Cognito's answer is lost, not its work: the change must be reported as it is, never as failed when it was made.
const cognitoEndpoint = () => app.stack.env.COGNITO_ENDPOINT!;
afterEach(() => resetHarness(cognitoEndpoint()));

test("a change Cognito made but answered too late is reported as made: the new password is in force, this browser stays", async () => {
  const member = await signedInMember(app.services, "late-answer");
  // The first ChangePassword is carried out and answered after the SDK gave up; its retry then finds the current
  // password changed and is refused as a wrong one.
  await setFault(cognitoEndpoint(), {
    mode: "slowAnswer",
    delayMs: COGNITO_CALL_TIMEOUT_MS + 2_000,
    operations: ["ChangePassword"],
    times: 1,
  });
  const changed = (await post(member, {})) as Response;
  expect(changed.status).toBe(302);
  expect(changed.headers.get("Location")).toBe(pathFor("my-profile", "ja"));
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("tokens");
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("refused");
  expect((await resolvePageSession(app.services, member)).kind).toBe("member");
});

test("a change Cognito never made is reported as not made, and the old password stays in force", async () => {
  const member = await signedInMember(app.services, "dropped");
  await setFault(cognitoEndpoint(), { mode: "slow", delayMs: 600_000, operations: ["ChangePassword"] });
  const answer = (await post(member, {})) as FormReply;
  expect(answer.init.status).toBe(503);
  expect(answer.data.result.error?.[""]).toEqual([
    "認証サービスが一時的に利用できません。時間をおいて再度お試しください",
  ]);
  await resetHarness(cognitoEndpoint());
  expect(await passwordSignIn(member.email, MEMBER_PASSWORD)).toBe("tokens");
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("refused");
});

test("a change whose answer is lost while Cognito stays silent is reported as unconfirmed, never as failed", async () => {
  const member = await signedInMember(app.services, "unconfirmed");
  // ChangePassword is carried out but answered too late; once it has arrived, the sign-in that would tell whether the
  // new password is in force is answered too late as well: nothing can say what is true.
  await setFault(cognitoEndpoint(), {
    mode: "slowAnswer",
    delayMs: COGNITO_CALL_TIMEOUT_MS + 2_000,
    operations: ["ChangePassword"],
    times: 1,
  });
  const posted = post(member, {});
  await expect.poll(async () => (await getFault(cognitoEndpoint())).applied, { interval: 50 }).toBe(1);
  await setFault(cognitoEndpoint(), {
    mode: "slowAnswer",
    delayMs: COGNITO_CALL_TIMEOUT_MS + 2_000,
    operations: ["AdminInitiateAuth"],
  });
  const answer = (await posted) as FormReply;
  expect(answer.init.status).toBe(503);
  expect(answer.data.result.error?.[""]?.[0]).toMatch(/パスワードが変更されたか確認できませんでした/);
  await resetHarness(cognitoEndpoint());
  // It was made after all: the member's next try is told the current password is wrong, as the message says.
  expect(await passwordSignIn(member.email, NEW_PASSWORD)).toBe("tokens");
});
