import { and, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { emailChangeTokens, memberSessions, staffSessions } from "~db/schema";
import type { Config } from "~/config.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import { countJobRun } from "~/integrations/metrics.server";
import type { Clock } from "~/services.server";
import { PENDING_SIGN_IN_TTL_MS } from "../sessions/device-admission.server";
import { revokeOwedRefreshTokens } from "../sessions/refresh-tokens.server";
import { deleteExpiredServerTokens } from "../sessions/server-tokens.server";
import { sweepStaffFactorSetups } from "../sessions/staff-factor-setup.server";
import {
  STAFF_SESSION_IDLE_MS,
  STAFF_SESSION_MAX_MS,
  revokeOwedStaffRefreshTokens,
} from "../sessions/staff-sessions.server";
import { purgeExpiredSignInAlertTokens } from "../account/sign-in-alert-links.server";
import { purgeFinishedMail } from "../mail/mail-outbox.server";
import { scheduleRepeating } from "./repeating-job.server";
import { claimScheduledTurn } from "./scheduled-turn.server";
import { finishOwedCognitoDeletions, purgeCancelledProfiles } from "../account/withdrawal.server";
import { purgeExpiredSecurityEvents } from "../security/security-record.server";
import { purgeExpiredAccountEvents } from "../events/account-events.server";
import { switchAbandonedTotpOn } from "../security/two-step-verification.server";

/** E-mail-change tokens are kept this long after they expire (used or not), then deleted. */
export const EMAIL_CHANGE_TOKEN_RETENTION_DAYS = 7;
/**
 * The first run after start-up waits this long (or one interval, when the interval is shorter), so a restart loop does
 * not hammer Cognito.
 */
export const PURGE_FIRST_RUN_DELAY_MS = 5 * 60 * 1000;
/** Any constant works; it only has to be the same in every instance (and differ from the migration lock's). */
export const PURGE_LOCK_KEY = 727_310_002;
/**
 * Ended sessions are kept this long, then deleted: well beyond an access token's longest life (one day), since
 * the member API refuses a token by its ended row (tokenStanding), and long enough to see recent sign-outs.
 */
export const ENDED_SESSION_RETENTION_DAYS = 30;
/**
 * An ended session whose revocation is still owed after this long is deleted all the same: by then its refresh
 * token has expired under Cognito's default 30-day validity (or its secret was rotated out and it cannot be opened).
 */
export const OWED_REVOCATION_GIVE_UP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PurgeDependencies {
  db: Database;
  /** Without it (the command run without Cognito settings) the Cognito retries are left to the server's schedule. */
  identity?:
    | Pick<
        IdentityProvider,
        "deleteUser" | "revokeRefreshToken" | "staffRevokeRefreshToken" | "setSoftwareTokenPreferenceOf"
      >
    | undefined;
  config: Pick<Config, "sessionSecrets">;
}

export interface PurgeReport {
  cancelledProfiles: number;
  endedSessions: number;
  endedStaffSessions: number;
  emailChangeTokens: number;
  securityEvents: number;
  /** Account events past ACCOUNT_EVENT_RETENTION_DAYS, with their deliveries. */
  accountEvents: number;
  signInAlertTokens: number;
  /** Server-only client tokens past their minutes (app/domain/sessions/server-tokens.server.ts). */
  serverTokens: number;
  finishedMail: number;
  cognitoDeletions: { deleted: number; owed: number } | null;
  revocations: { confirmed: number; owed: number } | null;
  /** Staff refresh tokens within their 8 hours whose revocation was owed. */
  staffRevocations: { confirmed: number; owed: number } | null;
  /** Recovery-code sign-ins that died with the member's TOTP off at Cognito, switched on again. */
  totpSwitchedOn: { switchedOn: number; owed: number } | null;
  /** Staff first visits' authenticator set-ups left unfinished, their staff refresh tokens revoked. */
  staffFactorSetups: number | null;
}

export async function purgeEmailChangeTokens(db: Database, now: Date): Promise<{ deleted: number }> {
  const rows = await db
    .delete(emailChangeTokens)
    .where(lt(emailChangeTokens.expiresAt, new Date(now.getTime() - EMAIL_CHANGE_TOKEN_RETENTION_DAYS * DAY_MS)))
    .returning({ tokenHash: emailChangeTokens.tokenHash });
  return { deleted: rows.length };
}

/**
 * Deletes sessions ended more than ENDED_SESSION_RETENTION_DAYS before `now` whose refresh token is confirmed
 * revoked (an owed revocation keeps its row, the only place the token is, up to OWED_REVOCATION_GIVE_UP_DAYS), and
 * ends pending sign-ins left on the device-limit screen past their lifetime so their refresh tokens get revoked too.
 */
export async function purgeEndedSessions(db: Database, now: Date): Promise<{ deleted: number }> {
  await db
    .update(memberSessions)
    .set({ revokedAt: now })
    .where(
      and(
        isNull(memberSessions.activatedAt),
        isNull(memberSessions.revokedAt),
        lt(memberSessions.createdAt, new Date(now.getTime() - PENDING_SIGN_IN_TTL_MS)),
      ),
    );
  const deleted = await db
    .delete(memberSessions)
    .where(
      or(
        and(
          lt(memberSessions.revokedAt, new Date(now.getTime() - ENDED_SESSION_RETENTION_DAYS * DAY_MS)),
          isNotNull(memberSessions.refreshTokenRevokedAt),
        ),
        lt(memberSessions.revokedAt, new Date(now.getTime() - OWED_REVOCATION_GIVE_UP_DAYS * DAY_MS)),
      ),
    )
    .returning({ id: memberSessions.id });
  return { deleted: deleted.length };
}

const MINUTE_MS = 60 * 1000;

/**
 * Staff sessions, by the members' rule (ENDED_SESSION_RETENTION_DAYS): an ended one is kept as long as a member's,
 * to see recent staff sign-ins and sign-outs beside the staff audit log, then deleted; nothing reads it after its
 * end. A session left past its 8 hours or its idle time ends as of when it expired, so its refresh token is revoked
 * (revokeOwedStaffRefreshTokens, after the commit); a token past its 8 hours, which Cognito no longer takes, is
 * cleared from its row, revoked or not.
 */
export async function purgeStaffSessions(db: Database, now: Date): Promise<{ deleted: number }> {
  const maxMinutes = STAFF_SESSION_MAX_MS / MINUTE_MS;
  const idleMinutes = STAFF_SESSION_IDLE_MS / MINUTE_MS;
  const pastEightHours = lte(staffSessions.createdAt, new Date(now.getTime() - STAFF_SESSION_MAX_MS));
  await db
    .update(staffSessions)
    .set({
      endedAt: sql`least(${staffSessions.createdAt} + make_interval(mins => ${maxMinutes}),
        ${staffSessions.lastSeenAt} + make_interval(mins => ${idleMinutes}))`,
    })
    .where(
      and(
        isNull(staffSessions.endedAt),
        or(pastEightHours, lte(staffSessions.lastSeenAt, new Date(now.getTime() - STAFF_SESSION_IDLE_MS))),
      ),
    );
  await db
    .update(staffSessions)
    .set({ refreshTokenEncrypted: null })
    .where(and(isNotNull(staffSessions.endedAt), isNotNull(staffSessions.refreshTokenEncrypted), pastEightHours));
  const deleted = await db
    .delete(staffSessions)
    .where(lt(staffSessions.endedAt, new Date(now.getTime() - ENDED_SESSION_RETENTION_DAYS * DAY_MS)))
    .returning({ id: staffSessions.id });
  return { deleted: deleted.length };
}

/**
 * Deletions by the retention rules: ended sessions (members' and staff's), old e-mail-change tokens, expired sign-in alert links,
 * server tokens past their minutes, sent or abandoned mail, security events past their 400 days, account events past their 30
 * days, cancelled members past retention.
 */
async function purgeExpiredData(db: Database, now: Date) {
  const { deleted: endedSessions } = await purgeEndedSessions(db, now);
  const { deleted: endedStaffSessions } = await purgeStaffSessions(db, now);
  const { deleted: emailChangeTokenCount } = await purgeEmailChangeTokens(db, now);
  const { deleted: signInAlertTokens } = await purgeExpiredSignInAlertTokens(db, now);
  const serverTokens = await deleteExpiredServerTokens(db, now);
  const { deleted: finishedMail } = await purgeFinishedMail(db, now);
  const { deleted: securityEvents } = await purgeExpiredSecurityEvents(db, now);
  const { deleted: accountEvents } = await purgeExpiredAccountEvents(db, now);
  const { purged: cancelledProfiles } = await purgeCancelledProfiles(db, now);
  return {
    cancelledProfiles,
    endedSessions,
    endedStaffSessions,
    emailChangeTokens: emailChangeTokenCount,
    signInAlertTokens,
    serverTokens,
    finishedMail,
    securityEvents,
    accountEvents,
  };
}

/**
 * The two-systems repairs: Cognito users of cancellations still to delete, refresh tokens still to revoke, TOTP
 * left off at Cognito by a recovery code's sign-in that died. A staff token owed is retried here with the members'
 * though it may expire first: its ended row is what closes the staff area, and the token never left the server.
 */
async function finishOwedCognitoWork(deps: PurgeDependencies, now: Date) {
  if (!deps.identity) {
    return {
      cognitoDeletions: null,
      revocations: null,
      staffRevocations: null,
      totpSwitchedOn: null,
      staffFactorSetups: null,
    };
  }
  const cognitoDeletions = await finishOwedCognitoDeletions({ db: deps.db, identity: deps.identity });
  const revocations = await revokeOwedRefreshTokens({ db: deps.db, identity: deps.identity, config: deps.config });
  const staffRevocations = await revokeOwedStaffRefreshTokens(
    { db: deps.db, identity: deps.identity, config: deps.config },
    now,
  );
  const totpSwitchedOn = await switchAbandonedTotpOn({ db: deps.db, identity: deps.identity }, now);
  const staffFactorSetups = await sweepStaffFactorSetups(
    { db: deps.db, identity: deps.identity, config: deps.config },
    now,
  );
  return { cognitoDeletions, revocations, staffRevocations, totpSwitchedOn, staffFactorSetups };
}

/**
 * Everything the data's retention rules and the two-systems repairs owe. Idempotent: a missed or repeated run
 * does no harm.
 */
export async function runPurge(deps: PurgeDependencies, now: Date): Promise<PurgeReport> {
  const owed = await finishOwedCognitoWork(deps, now);
  return { ...(await purgeExpiredData(deps.db, now)), ...owed };
}

/**
 * runPurge by one instance at a time: the deletions run in a transaction holding a PostgreSQL advisory lock, so two
 * instances (or the command and a server) never run them at once; null when another holds the lock. The Cognito
 * calls come after the commit, by the instance that got the lock: a transaction must not stay open over network
 * calls (with PGlite it would hold up every request), and they are idempotent should two runs ever meet.
 */
export async function runPurgeExclusively(deps: PurgeDependencies, now: Date): Promise<PurgeReport | null> {
  const purged = await deps.db.transaction(async (tx) => {
    // A one-row table expression rather than execute(): execute's result shape differs between the drivers.
    const [row] = await tx
      .select({ locked: sql<boolean>`pg_try_advisory_xact_lock(${PURGE_LOCK_KEY})` })
      .from(sql`(values (1)) as one`);
    return row?.locked ? purgeExpiredData(tx, now) : null;
  });
  return purged ? { ...purged, ...(await finishOwedCognitoWork(deps, now)) } : null;
}

/**
 * Runs the purge on a schedule inside the server process: first after PURGE_FIRST_RUN_DELAY_MS (or one interval, if
 * shorter), then every `intervalMs` (PURGE_INTERVAL_MINUTES), skipping a tick when another instance started it within
 * the last nine tenths of an interval (claimScheduledTurn). Returns a stop function.
 */
export function schedulePurge(
  deps: PurgeDependencies & { clock: Clock },
  options: { intervalMs: number; firstRunDelayMs?: number },
): () => void {
  const { intervalMs } = options;
  return scheduleRepeating(
    async () => {
      try {
        if (!(await claimScheduledTurn(deps.db, "purge", intervalMs))) return countJobRun("purge", "not-due", false);
        const report = await runPurgeExclusively(deps, deps.clock.now());
        countJobRun("purge", report ? "ran" : "busy", report !== null);
        if (report) logger.info({ purge: report }, "purge ran");
      } catch (error) {
        countJobRun("purge", "failed", false);
        logger.warn({ err: error }, "the scheduled purge failed; it runs again at the next interval");
      }
    },
    {
      firstRunDelayMs: options.firstRunDelayMs ?? Math.min(PURGE_FIRST_RUN_DELAY_MS, intervalMs),
      intervalMs,
    },
  );
}
