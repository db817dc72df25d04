import { createCookie } from "react-router";
import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import type { AccountInfo } from "~/domain/auth-schemas";
import { saveAccountInfo, startSignUp } from "~/domain/sign-up.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import { referrerServiceOf } from "~/routing/service-cookie.server";

/** Long enough to fetch a code from the mailbox and fill in the account information. */
export const SIGN_UP_FLOW_MAX_AGE_S = 2 * 60 * 60;

export type SignUpStep = "code" | "account" | "done";

export interface SignUpFlow {
  step: SignUpStep;
  email: string;
  /** Known once a code went out; null for an address that was already confirmed (the flow cannot finish). */
  sub: string | null;
}

let flowCookie: ReturnType<typeof createCookie> | undefined;

/** Where the member is in the sign-up steps: signed, so `sub` and `step` cannot be forged; no password inside. */
function getFlowCookie() {
  const config = getConfig();
  flowCookie ??= createCookie(`${config.secureCookies ? "__Secure-" : ""}id_sign_up`, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config.secureCookies,
    secrets: config.sessionSecrets,
    maxAge: SIGN_UP_FLOW_MAX_AGE_S,
  });
  return flowCookie;
}

export async function readSignUpFlow(request: Request): Promise<SignUpFlow | null> {
  const value: unknown = await getFlowCookie().parse(request.headers.get("Cookie"));
  if (typeof value !== "object" || value === null) return null;
  const { step, email, sub } = value as Partial<SignUpFlow>;
  if ((step !== "code" && step !== "account" && step !== "done") || typeof email !== "string") return null;
  return { step, email, sub: typeof sub === "string" ? sub : null };
}

export function saveSignUpFlow(flow: SignUpFlow): Promise<string> {
  return getFlowCookie().serialize(flow);
}

export function clearSignUpFlow(): Promise<string> {
  return getFlowCookie().serialize("", { maxAge: 0 });
}

export async function requestSignUpCode(input: { email: string; password: string; locale: string }): Promise<SignUpFlow> {
  const { sub } = await startSignUp(getIdentityProvider(), input);
  return { step: "code", email: input.email, sub };
}

export function resendSignUpCode(flow: SignUpFlow) {
  // Only when a code went out before: a confirmed address gets nothing, exactly as at step 1.
  return flow.sub ? getIdentityProvider().resendConfirmationCode(flow.email) : Promise.resolve();
}

export function confirmSignUpCode(flow: SignUpFlow, code: string) {
  return getIdentityProvider().confirmSignUp({ email: flow.email, code });
}

export async function completeAccountInfo(request: Request, flow: SignUpFlow & { sub: string }, info: AccountInfo) {
  await saveAccountInfo(
    { db: getDatabase(), identity: getIdentityProvider() },
    { sub: flow.sub, info, referrerService: await referrerServiceOf(request) },
  );
}
