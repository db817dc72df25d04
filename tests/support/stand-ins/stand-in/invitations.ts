/**
 * What Cognito does for users an administrator creates (AdminCreateUser) and cognito-local does not: a temporary
 * password that meets the pool's password policy, the pool's invitation template (or Cognito's default text), the
 * temporary password's expiry, and the sessions of the NEW_PASSWORD_REQUIRED challenge. Never part of production.
 */
import { randomBytes, randomInt } from "node:crypto";
import type { LocalPasswordPolicy, LocalUser } from "./cognito-local";
import { DEFAULT_MINIMUM_LENGTH } from "./password-policy";

/** PasswordPolicyType.TemporaryPasswordValidityDays when the pool names none. */
export const DEFAULT_TEMPORARY_PASSWORD_VALIDITY_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** An app client's AuthSessionValidity when it names none: the challenge's Session lives 3 minutes. */
export const DEFAULT_AUTH_SESSION_VALIDITY_MINUTES = 3;

/** Cognito's invitation when the pool has no AdminCreateUserConfig.InviteMessageTemplate. */
export const DEFAULT_INVITATION = {
  subject: "Your temporary password",
  message: "Your username is {username} and temporary password is {####}.",
};

export interface InviteMessageTemplate {
  EmailSubject?: string;
  EmailMessage?: string;
}

/** The invitation as Cognito sends it: the template's placeholders replaced by the user name and the password. */
export function invitationMessage(
  template: InviteMessageTemplate | undefined,
  username: string,
  temporaryPassword: string,
): { emailSubject: string; emailMessage: string } {
  const fill = (text: string) => text.replaceAll("{username}", username).replaceAll("{####}", temporaryPassword);
  return {
    emailSubject: fill(template?.EmailSubject || DEFAULT_INVITATION.subject),
    emailMessage: fill(template?.EmailMessage || DEFAULT_INVITATION.message),
  };
}

// Without look-alikes (0/O, 1/l/I) and without the characters HTML would escape (& < > " '), so the password reads
// the same in a mail client and on the dev mailbox page.
const LOWER = "abcdefghijkmnopqrstuvwxyz";
const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const DIGITS = "23456789";
const SYMBOLS = "!#$%*+=?@^_-";
const TEMPORARY_PASSWORD_LENGTH = 12;

const pick = (alphabet: string) => alphabet[randomInt(alphabet.length)]!;

/**
 * A temporary password as Cognito generates one: at least the policy's minimum length and one character of every
 * class (so it passes whichever classes the policy requires), in random order.
 */
export function generateTemporaryPassword(policy: LocalPasswordPolicy | undefined): string {
  const length = Math.max(TEMPORARY_PASSWORD_LENGTH, policy?.MinimumLength ?? DEFAULT_MINIMUM_LENGTH);
  const characters = [pick(LOWER), pick(UPPER), pick(DIGITS), pick(SYMBOLS)];
  const all = LOWER + UPPER + DIGITS + SYMBOLS;
  while (characters.length < length) characters.push(pick(all));
  for (let index = characters.length - 1; index > 0; index -= 1) {
    const other = randomInt(index + 1);
    [characters[index], characters[other]] = [characters[other]!, characters[index]!];
  }
  return characters.join("");
}

/** When the user's current temporary password was issued (the harness's own field, else the creation time). */
export function invitedAt(user: LocalUser): Date {
  return new Date(user.HarnessInvitedAt ?? user.UserCreateDate);
}

export function temporaryPasswordExpired(user: LocalUser, policy: LocalPasswordPolicy | undefined, now: Date): boolean {
  const days = policy?.TemporaryPasswordValidityDays ?? DEFAULT_TEMPORARY_PASSWORD_VALIDITY_DAYS;
  return now.getTime() >= invitedAt(user).getTime() + days * DAY_MS;
}

/**
 * The user record with its invitation made `days` older (the harness's control, so tests need not wait a week): as if
 * the user had been created and invited that much earlier, so AdminGetUser's UserCreateDate, which the app dates a
 * first invitation by, moves with it.
 */
export function agedInvitation(user: LocalUser, days: number): LocalUser {
  const earlier = (date: Date) => new Date(date.getTime() - days * DAY_MS);
  return {
    ...user,
    UserCreateDate: earlier(new Date(user.UserCreateDate)),
    HarnessInvitedAt: earlier(invitedAt(user)).toISOString(),
  };
}

interface ChallengeSession {
  userPoolId: string;
  clientId: string;
  username: string;
  expiresAt: number;
}

/**
 * The Sessions the NEW_PASSWORD_REQUIRED challenge hands out, each bound to one user and app client and valid for
 * the client's AuthSessionValidity; a successful answer uses it up (a refused new password may be tried again). In memory: a restarted stand-in forgets
 * them, as a session older than its validity is forgotten by Cognito.
 */
export class ChallengeSessions {
  private readonly sessions = new Map<string, ChallengeSession>();

  issue(binding: Omit<ChallengeSession, "expiresAt">, validityMinutes: number, now = Date.now()): string {
    for (const [key, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(key);
    // Cognito's Session is an opaque string of several hundred characters.
    const session = randomBytes(384).toString("base64url");
    this.sessions.set(session, { ...binding, expiresAt: now + validityMinutes * 60_000 });
    return session;
  }

  /** The session's binding: null when unknown, expired or issued to another user or client. */
  find(session: unknown, expected: Omit<ChallengeSession, "expiresAt">, now = Date.now()): ChallengeSession | null {
    if (typeof session !== "string") return null;
    const found = this.sessions.get(session);
    if (!found || found.expiresAt <= now) return null;
    if (
      found.userPoolId !== expected.userPoolId ||
      found.clientId !== expected.clientId ||
      found.username !== expected.username
    ) {
      return null;
    }
    return found;
  }

  /** An answered challenge's session cannot answer again. */
  useUp(session: string): void {
    this.sessions.delete(session);
  }

  /** Every outstanding session expires now (the harness's control for tests of "session is expired"). */
  expireAll(): number {
    const count = this.sessions.size;
    this.sessions.clear();
    return count;
  }
}
