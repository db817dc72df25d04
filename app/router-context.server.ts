import { type RouterContext, type RouterContextProvider, createContext } from "react-router";
import type { SiblingService } from "~/config.server";
import type { SignedInMember } from "~/domain/sessions/page-sessions.server";
import type { SignedInStaff } from "~/domain/sessions/staff-sessions.server";
import type { StaffStanding } from "~/domain/directory/staff-group-check.server";
import type { AppServices } from "~/services.server";

/**
 * Every typed value a request's router context carries, and who puts it there: the HTTP server (request info,
 * services, the dev mailbox and event capture), the pages' middleware (the member, the database fault) or the entry (a failed form post, from
 * its error handler). Loaders, actions and middleware read them through these
 * keys, and through the accessors beside them where reading has a rule of its own.
 */

// The HTTP server and the React Router build load this file as two separate modules (two module graphs), so a key
// the server fills in lives on globalThis: both copies must hand React Router the same key.
const registry = globalThis as unknown as Record<symbol, RouterContext<unknown> | undefined>;

/** A router context key shared by both module graphs, registered under `name`. */
function sharedContext<T>(name: string, defaultValue?: T): RouterContext<T> {
  const key = Symbol.for(`member-account.${name}`);
  return (registry[key] ??= createContext<T>(defaultValue) as RouterContext<unknown>) as RouterContext<T>;
}

/** What the HTTP layer learned about a request before React Router saw it. */
export interface RequestInfo {
  requestId: string;
  /** Per-response CSP nonce; every inline script the app renders carries it (empty in development). */
  nonce: string;
  /** Client IP, from the socket or from a configured trusted proxy header only. */
  clientIp: string;
  /**
   * The route pattern React Router matched ("en/admin/users/:sub"), put here by the route's outermost middleware (the
   * root's for pages, the API's own): the HTTP layer names the route in its metrics from it. Unset when no route ran.
   */
  routePattern?: string;
}

export const requestInfoContext = sharedContext<RequestInfo>("request-info");

/**
 * Why the HTTP layer must not read a body over the ordinary limit (app/large-body-gate.server.ts), as
 * the API answers it: pages answer 413 whatever the reason.
 */
export interface LargeBodyRefusal {
  code: "unauthorized" | "forbidden" | "staff_token_required" | "service_unavailable";
  headers?: Record<string, string>;
}

/** The request's client IP (see RequestInfo), e.g. for the member's security record. */
export function clientIpOf(context: Readonly<RouterContextProvider>): string {
  return context.get(requestInfoContext).clientIp;
}

/** The app's services, built by the composition root (app/composition-root.server.ts) once per loaded build. */
export const servicesContext = sharedContext<AppServices>("services");

/** The request's services; the HTTP server puts them in every request's context. */
export function servicesOf(context: Readonly<RouterContextProvider>): AppServices {
  return context.get(servicesContext);
}

/** One captured mail, or one code the Cognito stand-in would have sent. */
export interface MailboxEntry {
  id: string;
  receivedAt: string;
  kind: "mail" | "code";
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /** For stand-in codes: the code itself, so tests and developers need not parse the message. */
  code?: string;
}

/** The development mailbox, newest first. */
export interface DevMailbox {
  entries(): Promise<MailboxEntry[]>;
}

/**
 * The mailbox lives with the stand-ins in the tests' tree: the dev and preview entry (app/server/dev-entry.ts) hands
 * it to every request; production has none.
 */
export const devMailboxContext = sharedContext<DevMailbox | null>("dev-mailbox", null);

/**
 * One delivery the development event capture received for a sibling service: a Standard Webhooks event or a
 * back-channel logout token, as it came, and whether its signature verified.
 */
export interface CapturedSiblingDelivery {
  id: string;
  receivedAt: string;
  service: SiblingService;
  channel: "webhook" | "logout";
  /** The event's type for a webhook; null for a logout token (its channel says what it is) or an unreadable body. */
  type: string | null;
  /** The webhook's `webhook-id`, or the logout token's `jti`. */
  eventId: string | null;
  headers: Record<string, string>;
  body: string;
  /** A logout token's claims, decoded whether or not its signature verified, for reading. */
  claims?: Record<string, unknown>;
  /** "unverifiable": the app's keys could not be fetched, so neither yes nor no. */
  verdict: "verified" | "rejected" | "unverifiable";
  /** Why it was rejected or could not be verified. */
  reason: string | null;
}

/** What the development event capture received, newest first. */
export interface DevEventCapture {
  deliveries(): Promise<CapturedSiblingDelivery[]>;
}

/** Like the mailbox: handed to every request by the dev and preview entry; production has none. */
export const devEventCaptureContext = sharedContext<DevEventCapture | null>("dev-event-capture", null);

/** What the dev and preview entry hands every request besides the services: the stand-ins' views. */
export interface DevToolSources {
  mailbox: DevMailbox;
  events: DevEventCapture;
}

/** The signed-in member, set by the pages' session middleware (app/middleware/member-session.server.ts). */
export const memberContext = createContext<SignedInMember | null>(null);

/** The staff member of a staff session, set by the staff pages' middleware (app/middleware/staff-session.server.ts). */
export const staffContext = createContext<SignedInStaff | null>(null);

/**
 * The staff session's member's standing as staff right now, read by the staff pages' middleware from the member
 * directory (app/domain/directory/staff-group-check.server.ts) for requireAdmin; null: not read (refused).
 */
export const staffStandingContext = createContext<StaffStanding | null>(null);

/** Set when the database could not be asked whose session the cookie names: the member is unknown, not absent. */
export const databaseUnavailableContext = createContext<boolean>(false);

/**
 * Set by handleError (app/entry.server.tsx) when a form post's action (or a middleware before it) threw: an error,
 * not an answer (app/errors/failed-submission.server.ts).
 */
export const submissionFailedContext = sharedContext<boolean>("submission-failed", false);
