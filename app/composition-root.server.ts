/**
 * The composition root: where the app's services and the server's background jobs are built from the
 * configuration, the database and the adapters. Nothing else assembles them; the HTTP server (app/server/), the
 * commands (app/commands/) and the tests take them from here.
 */
import type { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { type Database, csvCopyFor } from "~db/client.server";
import type { Config } from "~/config.server";
import { MIN_PASSWORD_LENGTH } from "~/domain/forms/field-schemas";
import { CSV_IMPORT_MAX_FILE_BYTES } from "~/domain/csv-import/csv-import-file.server";
import { startServerImportWorker } from "~/domain/csv-import/import-worker.server";
import { scheduleDirectoryReconcile } from "~/domain/directory/directory-reconcile.server";
import { scheduleStaffGroupCheck } from "~/domain/directory/staff-group-check.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { oldestUndeliveredSeconds } from "~/domain/events/endpoint-admin.server";
import { startEventDeliveryWorker } from "~/domain/events/event-delivery.server";
import { createLogoutTokenSigner, logoutSigningKeyProblems } from "~/domain/events/logout-tokens.server";
import { recordingDirectoryWrites } from "~/domain/directory/member-directory.server";
import { schedulePurge } from "~/domain/jobs/purge.server";
import { startMailOutboxWorker } from "~/domain/mail/mail-outbox.server";
import { scheduleTotpOffRepair } from "~/domain/security/two-step-verification.server";
import { scheduleCognitoChangeRepair } from "~/domain/account/cognito-change-repair.server";
import { scheduleFactorReconcile } from "~/domain/security/factor-reconcile.server";
import { scheduleSecondStepReports } from "~/domain/security/unfinished-second-steps.server";
import { LOCALES } from "~/i18n/locales";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { identityPoolProblems } from "~/integrations/cognito/pool-contract.server";
import { logger } from "~/integrations/logger.server";
import { createMailer } from "~/integrations/mailer.server";
import { observeOldestUndeliveredEvent } from "~/integrations/metrics.server";
import { createSiblingSender } from "~/integrations/webhook-sender.server";
import { pathFor } from "~/routing/route-table";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { type AppServices, type Clock, systemClock } from "~/services.server";

/**
 * The identity provider as the domain uses it: failures as DomainError, and the member directory kept current after
 * each of its writes. Every place that assembles an identity provider for the domain uses this one.
 */
export function createDomainIdentity(
  cognito: Config["cognito"],
  db: Database,
  clock: Clock = systemClock,
  client?: CognitoIdentityProviderClient,
) {
  return withDomainErrors(recordingDirectoryWrites(createIdentityProvider(cognito, client), db, clock));
}

export function createAppServices(config: Config, db: Database, clock: Clock = systemClock): AppServices {
  return {
    config,
    db,
    csvCopy: csvCopyFor(db),
    identity: createDomainIdentity(config.cognito, db, clock),
    mailer: withDomainErrors(createMailer(config)),
    clock,
  };
}

/** The start-up check of the Cognito pool against the deployment contract: its problems, none when it fits. */
export async function identityPoolProblemsOf(config: Config): Promise<string[]> {
  const cognito = createCognitoClient(config.cognito);
  return identityPoolProblems(createIdentityProvider(config.cognito, cognito), {
    minimumPasswordLength: MIN_PASSWORD_LENGTH,
    adminGroup: config.adminGroup,
    appOrigin: config.origin,
  }).finally(() => cognito.destroy());
}

/**
 * The start-up check of the logout tokens' signing keys: unreadable keys, or none while a sibling service has a
 * back-channel logout URI. Its problems, none when they are usable or not needed.
 */
export function logoutSigningKeyProblemsOf(config: Config): string[] {
  return logoutSigningKeyProblems(config);
}

/**
 * Multipart's own bytes around an uploaded file: the boundaries, each part's headers and the form's other fields.
 * Generous, so that a file just over the import's cap reaches the dry run and gets its translated "file too large"
 * rather than the page lane's plain 413.
 */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Pages whose forms may post more than the page lane's default body limit, by path in both languages: the staff's
 * CSV upload, up to the import's file cap.
 */
export function largerPageBodyLimits(): ReadonlyMap<string, number> {
  return new Map(
    LOCALES.map((locale) => [
      pathFor("admin-csv-import", locale),
      CSV_IMPORT_MAX_FILE_BYTES + MULTIPART_OVERHEAD_BYTES,
    ]),
  );
}

/** A background job: started with the server, stopped (and awaited) at its shutdown. */
export interface ServerJob {
  start(): () => void | Promise<void>;
}

/** Every job the server runs beside answering requests, in the order they start. */
export function serverJobs(config: Config, db: Database, clock: Clock = systemClock): ServerJob[] {
  const identity = createDomainIdentity(config.cognito, db, clock);
  const { requestsPerSecond, intervalMinutes } = config.directoryReconcile;
  return [
    {
      // Retention and the two-systems repairs (owed Cognito deletions and revocations); see app/domain/jobs/purge.server.ts.
      // An interval of 0 turns it off.
      start: () =>
        config.purgeIntervalMinutes > 0
          ? schedulePurge({ db, identity, config, clock }, { intervalMs: config.purgeIntervalMinutes * 60 * 1000 })
          : () => {},
    },
    {
      // The staff's member directory kept in step with Cognito (app/domain/directory/directory-reconcile.server.ts); an
      // interval of 0 turns it off.
      start: () =>
        intervalMinutes > 0
          ? scheduleDirectoryReconcile(
              { db, identity, clock },
              { requestsPerSecond, intervalMs: intervalMinutes * 60 * 1000 },
            )
          : () => {},
    },
    {
      // The staff group's members read from Cognito into the directory, so staff rights are re-checked within a
      // minute on every instance (app/domain/directory/staff-group-check.server.ts).
      start: () =>
        scheduleStaffGroupCheck(
          { db, identity, clock },
          { staffGroup: config.adminGroup, intervalMs: config.staffGroupCheckIntervalMs },
        ),
    },
    {
      // Every member's second factors at Cognito checked against our record, a batch a run
      // (app/domain/security/factor-reconcile.server.ts); an interval of 0 turns it off.
      start: () =>
        config.factorReconcile.intervalMinutes > 0
          ? scheduleFactorReconcile(
              { db, identity, clock },
              {
                intervalMs: config.factorReconcile.intervalMinutes * 60 * 1000,
                requestsPerSecond: config.factorReconcile.requestsPerSecond,
              },
            )
          : () => {},
    },
    {
      // A recovery code's sign-in cut off with the member's TOTP off at Cognito, switched on again within minutes
      // (app/domain/security/two-step-verification.server.ts).
      start: () => scheduleTotpOffRepair({ db, identity, clock }),
    },
    {
      // Changes Cognito may have made without our record (a crash or a lost answer between the two), recorded or
      // dropped by what Cognito holds; new passwords settled at the next sign-in
      // (app/domain/account/cognito-change-repair.server.ts).
      start: () => scheduleCognitoChangeRepair({ db, identity, config, clock }),
    },
    {
      // Right passwords left without their second step, reported to the member in their record and by mail
      // (app/domain/security/unfinished-second-steps.server.ts).
      start: () => scheduleSecondStepReports({ db, clock }),
    },
    {
      // The mail outbox's worker (app/domain/mail/mail-outbox.server.ts): sign-in alerts and notices, sent after the
      // response and retried; woken by this process's requests, and polling for the other instances'.
      start: () => {
        const worker = startMailOutboxWorker({
          db,
          mailer: withDomainErrors(createMailer(config)),
          mailTexts: i18nextOutsideRequests,
          links: securityMailLinksFor(config.origin),
          clock,
        });
        return () => worker.stop();
      },
    },
    {
      // The account events' delivery worker (app/domain/events/event-delivery.server.ts): numbers committed events,
      // then pushes them to the sibling services (webhooks, back-channel logout tokens), retried on its schedule.
      // Outside dev and preview, whose receivers run on this machine, no endpoint may resolve to an internal address.
      start: () => {
        const sender = createSiblingSender({ refuseInternalAddresses: config.mode === "production" });
        const worker = createLogoutTokenSigner(config.logoutTokenSigningKeys, config.origin).then(
          (signer) => startEventDeliveryWorker({ db, clock, settings: config.siblingEvents, signer, sender }),
          (error: unknown) => {
            logger.error({ err: error }, "account events are not delivered: the logout signing keys are unusable");
            return null;
          },
        );
        return async () => {
          await (await worker)?.stop();
          sender.close();
        };
      },
    },
    {
      // The staff CSV import's worker (app/domain/csv-import/import-worker.server.ts), on a Cognito client of its own.
      start: () => {
        const worker = startServerImportWorker(config, db, (client) =>
          createDomainIdentity(config.cognito, db, clock, client),
        );
        return () => worker.stop();
      },
    },
  ];
}

/** The account events' backlog gauge, read from the database at each scrape of the metrics. */
export function observeEventBacklog(db: Database, clock: Clock = systemClock): void {
  observeOldestUndeliveredEvent(() => oldestUndeliveredSeconds(db, clock.now()));
}
