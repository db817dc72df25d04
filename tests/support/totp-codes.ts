/**
 * RFC 6238 codes as an authenticator app computes them from the key Cognito (or the stand-in) hands out
 * (HMAC-SHA-1, 6 digits, 30-second steps), for tests that sign in with a second factor. Computed with otpauth, the
 * library the stand-in checks them with, never by hand.
 */
import { Secret, TOTP } from "otpauth";

export const TOTP_STEP_MS = 30_000;

function totpOf(secret: string): TOTP {
  return new TOTP({ secret: Secret.fromBase32(secret.replace(/\s+/g, "")), algorithm: "SHA1", digits: 6, period: 30 });
}

/**
 * The code for `secret` (base32, spaces allowed as in a key shown in groups), `steps` 30-second steps after `from`
 * (default now). A code of the step after one already used is the next one a test may use without waiting.
 */
export function totpCode(secret: string, options: { steps?: number; from?: number } = {}): string {
  return totpOf(secret).generate({ timestamp: (options.from ?? Date.now()) + (options.steps ?? 0) * TOTP_STEP_MS });
}

/** Six digits that are no code of `secret` in the steps around now, even if a step ends while the test runs. */
export function wrongTotpCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((steps) => totpCode(secret, { steps })));
  for (let steps = 10; ; steps += 1) {
    const candidate = totpCode(secret, { steps });
    if (!valid.has(candidate)) return candidate;
  }
}
