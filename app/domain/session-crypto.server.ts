import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Cognito refresh tokens are stored encrypted (AES-256-GCM) under a key derived from the session secrets, so a
 * database dump alone cannot sign anyone in. The first secret encrypts; every secret is tried to decrypt, so
 * secrets rotate without signing members out.
 */
const FORMAT_VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "member-account", "refresh-token-encryption", 32));
}

export function encryptSecret(plaintext: string, secrets: string[]): string {
  const [current] = secrets;
  if (!current) throw new Error("No session secret configured");
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(current), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${FORMAT_VERSION}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

/** The plaintext, or null when no configured secret opens it (tampered, or encrypted under a retired secret). */
export function decryptSecret(stored: string, secrets: string[]): string | null {
  const [version, ivText, sealedText] = stored.split(".");
  if (version !== FORMAT_VERSION || !ivText || !sealedText) return null;
  const iv = Buffer.from(ivText, "base64url");
  const sealed = Buffer.from(sealedText, "base64url");
  if (sealed.length < TAG_BYTES) return null;
  for (const secret of secrets) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", deriveKey(secret), iv);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      // Not this secret; try the next.
    }
  }
  return null;
}
