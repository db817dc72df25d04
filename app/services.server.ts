import type { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { type RouterContextProvider, createContext } from "react-router";
import { type CsvCopy, type Database, csvCopyFor } from "../db/client.server";
import type { Config } from "~/config.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { recordingDirectoryWrites } from "~/domain/directory/member-directory.server";
import { type IdentityProvider, createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { type Mailer, createMailer } from "~/integrations/mailer.server";

/** The time, as a service: tests of expiry and retention set it instead of waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What loaders, actions and middleware work with, built once per loaded build (app/server/app-context.ts). */
export interface AppServices {
  config: Config;
  db: Database;
  /** PostgreSQL's CSV of a query, streamed (downloads): see db/client.server.ts. */
  csvCopy: CsvCopy;
  identity: IdentityProvider;
  mailer: Mailer;
  clock: Clock;
}

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

export const servicesContext = createContext<AppServices>();

/** The request's services; the HTTP server puts them in every request's context. */
export function servicesOf(context: Readonly<RouterContextProvider>): AppServices {
  return context.get(servicesContext);
}
