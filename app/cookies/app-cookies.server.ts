import { randomBytes } from "node:crypto";
import { z } from "zod";
import { SERVICE_THEMES } from "~/config.server";
import { type CookieConfig, defineCookie } from "./signed-cookie.server";

/** Auth cookies last 30 days; the device key outlives sign-ins (browsers cap cookies at 400 days). */
export const SESSION_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;
export const DEVICE_COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;
export const PENDING_SIGN_IN_COOKIE_MAX_AGE_S = 10 * 60;
/** Long enough to fetch a code from the mailbox and fill in the account information. */
export const SIGN_UP_FLOW_MAX_AGE_S = 2 * 60 * 60;
/**
 * How long the reset remembers the address between its two steps. Cognito's code lives an hour; half of that is
 * plenty to read a mail, and a forgotten tab falls back to the first step instead of naming the address.
 */
export const PASSWORD_RESET_COOKIE_MAX_AGE_S = 30 * 60;

export const SessionCookieSchema = z.object({
  /** The member_sessions row. */
  sid: z.string(),
  /** The short-lived Cognito access token, so page views need no upstream call. */
  at: z.string(),
});

/** The page session: shared with the sibling services, which see the member signed in. */
export const sessionCookie = defineCookie("id_session", SessionCookieSchema, {
  shared: true,
  maxAge: SESSION_COOKIE_MAX_AGE_S,
});

/** The session id of a sign-in held on the device-limit screen. */
export const pendingSignInCookie = defineCookie("id_pending_sign_in", z.string().min(1), {
  shared: true,
  maxAge: PENDING_SIGN_IN_COOKIE_MAX_AGE_S,
});

/** The browser's long-lived device key. */
export const deviceCookie = defineCookie("id_device", z.string().min(1), {
  shared: true,
  maxAge: DEVICE_COOKIE_MAX_AGE_S,
});

/**
 * Which service sent the member here, for the rest of the browser session, so the header keeps that service's
 * look while the member moves between our own pages (their referrer is then our own origin).
 */
export const serviceCookie = defineCookie("service", z.enum(SERVICE_THEMES));

/**
 * Where the visitor is in the sign-up steps: text sealed with AES-256-GCM under the session secrets (see
 * app/routes/default/auth-sign-up.server.ts), so nobody can read the address or the sub out of it.
 */
export const signUpFlowCookie = defineCookie("id_sign_up", z.string().min(1), { maxAge: SIGN_UP_FLOW_MAX_AGE_S });

export const PasswordResetStateSchema = z.object({
  email: z.string(),
  /** How many codes this reset has asked for: the page says "a new code" after a resend. */
  sends: z.number(),
  /** Epoch ms. Checked on reading too, because the signature alone would accept the value for ever. */
  expiresAt: z.number(),
});
export type PasswordResetState = z.infer<typeof PasswordResetStateSchema>;

/** The password reset's state, so its two steps work without JavaScript; no sibling service needs it. */
export const passwordResetCookie = defineCookie("id_password_reset", PasswordResetStateSchema, {
  maxAge: PASSWORD_RESET_COOKIE_MAX_AGE_S,
});

/**
 * How long the first sign-in's "choose your password" step remembers Cognito's challenge: the longest
 * AuthSessionValidity an app client can have (15 minutes). Cognito's own session (3 minutes by default) decides
 * first; past it, the answer is "challengeExpired" and the member is sent back to sign in, told why.
 */
export const NEW_PASSWORD_CHALLENGE_COOKIE_MAX_AGE_S = 15 * 60;

export const NewPasswordChallengeStateSchema = z.object({
  /** The address typed at sign-in: shown on the page, and the rate limit's subject. */
  email: z.string(),
  /** Cognito's user name and challenge Session, which the answer must bring back. */
  username: z.string(),
  session: z.string(),
  /** Epoch ms. Checked on reading too, because the signature alone would accept the value for ever. */
  expiresAt: z.number(),
});
export type NewPasswordChallengeState = z.infer<typeof NewPasswordChallengeStateSchema>;

/**
 * An invited member's first sign-in between its two steps, so the page works without JavaScript and the Session never
 * travels in a URL. Never the temporary password. This host only: no sibling service takes part.
 */
export const newPasswordChallengeCookie = defineCookie("id_new_password", NewPasswordChallengeStateSchema, {
  maxAge: NEW_PASSWORD_CHALLENGE_COOKIE_MAX_AGE_S,
});

/**
 * How long the sign-in's code step remembers Cognito's challenge: as the first sign-in's step above, Cognito's own
 * session decides first.
 */
export const CODE_CHALLENGE_COOKIE_MAX_AGE_S = 15 * 60;

/**
 * The sign-in of a member with 2-step verification between the password and the code, so the code step works without
 * JavaScript and the Session never travels in a URL. Never the password. This host only. The same shape as the first
 * sign-in's challenge.
 */
export const codeChallengeCookie = defineCookie("id_code_step", NewPasswordChallengeStateSchema, {
  maxAge: CODE_CHALLENGE_COOKIE_MAX_AGE_S,
});

/**
 * How long the authenticator's setup waits for the first code: the password step's window, so a setup is never
 * confirmed on a password older than the step allows.
 */
export const AUTHENTICATOR_SETUP_COOKIE_MAX_AGE_S = 10 * 60;

/**
 * The authenticator secret being set up, between "Set up" (AssociateSoftwareToken) and the first code, so the page
 * shows the same QR code on every view without asking Cognito again. Sealed with AES-256-GCM under the session
 * secrets (app/domain/security/authenticator-setup.server.ts): the secret is never readable in the browser's cookie
 * store nor changeable. This host only.
 */
export const authenticatorSetupCookie = defineCookie("id_authenticator_setup", z.string().min(1), {
  maxAge: AUTHENTICATOR_SETUP_COOKIE_MAX_AGE_S,
});

/**
 * A passkey sign-in between its two posts: Cognito's WEB_AUTHN challenge for the member, so its Session never
 * reaches the page's script. Sealed (app/domain/account/passkey-sign-in.server.ts), because after a passkey autofill
 * pick the address inside is one the browser never sent. Cognito's own session (AuthSessionValidity) decides first;
 * this only bounds the cookie.
 */
export const passkeyChallengeCookie = defineCookie("id_passkey_sign_in", z.string().min(1), {
  maxAge: NEW_PASSWORD_CHALLENGE_COOKIE_MAX_AGE_S,
});

const LOCALE_COOKIE_NAME = "i18n_redirected";
const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/**
 * The chosen language, the one cookie that is not signed: it keeps the name and plain value ("en") that Nuxt's i18n
 * module uses in the sibling services, so each side's tooling reads the other's. It only decides redirects.
 */
export const localeCookie = {
  read(request: Request): string | undefined {
    const header = request.headers.get("Cookie") ?? "";
    return new RegExp(`(?:^|;\\s*)${LOCALE_COOKIE_NAME}=([^;]*)`).exec(header)?.[1];
  },
  serialize(config: Pick<CookieConfig, "secureCookies">, locale: string): string {
    return [
      `${LOCALE_COOKIE_NAME}=${locale}`,
      "Path=/",
      `Max-Age=${LOCALE_COOKIE_MAX_AGE_S}`,
      "SameSite=Lax",
      "HttpOnly",
      ...(config.secureCookies ? ["Secure"] : []),
    ].join("; ");
  },
};

/** The browser's device key, and a Set-Cookie when it had none yet. */
export async function readOrCreateDeviceKey(
  config: CookieConfig,
  request: Request,
): Promise<{ deviceKey: string; setCookie?: string }> {
  const deviceKey = await deviceCookie.read(config, request);
  if (deviceKey) return { deviceKey };
  const created = randomBytes(18).toString("base64url");
  return { deviceKey: created, setCookie: await deviceCookie.serialize(config, created) };
}

/** As long as a password step vouches for a session (REAUTHENTICATION_WINDOW_MS): the form waits no longer. */
export const KEPT_FORM_COOKIE_MAX_AGE_S = 10 * 60;

export const KeptFormStateSchema = z.object({
  /** The member who typed it: another member signing in on this browser never sees it. */
  sub: z.string(),
  /** The page whose form it fills again (its path, language prefix included). */
  page: z.string(),
  /** What was typed, by field name; never a password. */
  fields: z.record(z.string(), z.string()),
  /** Epoch ms. Checked on reading too, because the signature alone would accept the value for ever. */
  expiresAt: z.number(),
});

/**
 * A form posted from a session whose password is not recent, kept while the member passes the password step, so the
 * page they return to shows what they typed, without putting it in a URL. This host only.
 */
export const keptFormCookie = defineCookie("id_kept_form", KeptFormStateSchema, { maxAge: KEPT_FORM_COOKIE_MAX_AGE_S });

/**
 * The staff session (app/domain/sessions/staff-sessions.server.ts): this host only, never the parent domain, so no
 * sibling service ever receives staff power; `__Host-` over https. The session itself ends sooner (8 hours at most).
 */
export const staffSessionCookie = defineCookie("id_staff_session", SessionCookieSchema, { maxAge: 8 * 60 * 60 });

/**
 * The staff sign-in between the password and the code: Cognito's challenge for the staff client, as the member
 * sign-in's code step keeps its own (codeChallengeCookie). This host only.
 */
export const staffCodeChallengeCookie = defineCookie("id_staff_code_step", NewPasswordChallengeStateSchema, {
  maxAge: CODE_CHALLENGE_COOKIE_MAX_AGE_S,
});

/**
 * How long the staff sign-in's password step counts for the passkey: long enough to reach for the device, and the
 * password again after that.
 */
export const STAFF_PASSKEY_STEP_COOKIE_MAX_AGE_S = 10 * 60;

/**
 * The staff sign-in between the password and the passkey: who passed the password step and, once asked for,
 * Cognito's WEB_AUTHN challenge on the staff client. Sealed (app/domain/sessions/staff-passkey-sign-in.server.ts),
 * so the passkey step cannot be reached without the password. This host only.
 */
export const staffPasskeyStepCookie = defineCookie("id_staff_passkey_step", z.string().min(1), {
  maxAge: STAFF_PASSKEY_STEP_COOKIE_MAX_AGE_S,
});

/**
 * A staff member's first visit between the password and the new authenticator app's first code: which set-up of
 * app/domain/sessions/staff-factor-setup.server.ts is this browser's (its tokens and secret stay in the database).
 * The set-up's own expiry, the server token's, decides first; this only bounds the cookie. This host only.
 */
export const staffFactorSetupCookie = defineCookie("id_staff_factor_setup", z.object({ setupId: z.string().uuid() }), {
  maxAge: AUTHENTICATOR_SETUP_COOKIE_MAX_AGE_S,
});
