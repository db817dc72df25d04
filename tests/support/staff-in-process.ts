import { signIn } from "~/domain/account/sign-in.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import type { AppServices } from "~/services.server";
import { type StaffWithAuthenticator, createStaffAdmin, firstAuthenticatorCode } from "./admin-members";
import { serverTokenFor } from "./signed-in-members";
import { secondAfter } from "./staff-api-access";

/**
 * An admin of its own with the authenticator app turned on as the security page does it, in-process on `services`
 * (tests that call route modules directly): the same steps the pages take (a sign-in that opens a member session, the
 * set-up with the server token, the first code), through the same functions, so Cognito and our record both know it.
 * staff-api-access.ts's createApiStaff does the same over HTTP.
 */
export async function staffWithAuthenticatorIn(
  services: AppServices,
  standInPort: number,
  label: string,
): Promise<StaffWithAuthenticator> {
  const staff = await createStaffAdmin(standInPort, label);
  const browser = { deviceKey: crypto.randomUUID(), userAgent: null, clientIp: "127.0.0.1", locale: "ja" as const };
  const signedIn = await signIn(services, { ...browser, email: staff.email, password: staff.password });
  if (signedIn.kind !== "active") throw new Error(`The sign-in of ${staff.email} ended as ${signedIn.kind}`);
  const token = await serverTokenFor(services, staff, staff.password);
  const totpSecret = await startAuthenticatorSetup(services, { token });
  const { code, nextStep } = await firstAuthenticatorCode(totpSecret);
  await turnOnTwoStep(services, {
    ...browser,
    sub: staff.sub,
    email: staff.email,
    token,
    sessionId: signedIn.sessionId,
    code,
  });
  await secondAfter(Date.now());
  return { ...staff, totpSecret, nextStep };
}
