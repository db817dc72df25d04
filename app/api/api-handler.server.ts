import type { i18n } from "i18next";
import type { z } from "zod";
import type { Database } from "~db/client.server";
import type { Config, SiblingService } from "~/config.server";
import { countFeedRead } from "~/domain/events/event-feed.server";
import { staffStandingNow } from "~/domain/directory/staff-group-check.server";
import { authenticatorAppOnSince } from "~/domain/security/two-step-verification.server";
import { listActiveDevices } from "~/domain/sessions/device-list.server";
import type { MemberRecord } from "~/domain/account/profile.server";
import { signedInRecently } from "~/domain/account/reauthentication.server";
import { type AttemptResult, type LimitedAction, countAttempt } from "~/domain/limits/rate-limit.server";
import {
  type SignInReservation,
  reserveSignInAttempt,
  settleSignInAttempt,
} from "~/domain/limits/sign-in-failures.server";
import { logger, runWithRequestId } from "~/integrations/logger.server";
import type { Locale } from "~/i18n/locales";
import { fixedTranslator } from "~/i18n/translator.server";
import { getInstance, getLocale, i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import type { AppServices } from "~/services.server";
import { ApiError, apiErrorResponse, apiJson, toApiError } from "./api-response.server";
import { type ApiMember, authenticateBearer, authenticateService } from "./bearer-auth.server";
import {
  type ApiBody,
  type ApiOperationId,
  type ApiQuery,
  type ApiResponseBody,
  type ServiceOperationId,
  apiEndpoint,
} from "./contract";
import { type ApiEndpoint, type ApiErrorCode } from "./endpoint";

/**
 * Everything an endpoint's handler gets besides its caller: the validated body and query, the path parameters, the
 * request's language (its Accept-Language) and i18next instance, and the app's services.
 */
interface ApiCallBase<Id extends ApiOperationId> extends AppServices {
  request: Request;
  body: ApiBody<Id>;
  query: ApiQuery<Id>;
  params: Readonly<Record<string, string | undefined>>;
  locale: Locale;
  /** The request's i18next instance (remix-i18next's, app/i18n/i18n-middleware.server.ts), in `locale`. */
  i18n: i18n;
  clientIp: string;
  /** The request's id, as the logs and the error envelope carry it (staff actions record it in the audit log). */
  requestId: string;
}

/** A call of a member or admin endpoint: made with a member's token, for that member. */
export interface ApiCall<Id extends ApiOperationId> extends ApiCallBase<Id> {
  member: ApiMember;
}

/** A call of a service endpoint (access "service"): made by a sibling service with its own token, for no member. */
export interface ServiceApiCall<Id extends ApiOperationId> extends ApiCallBase<Id> {
  service: SiblingService;
}

type ApiAnswer<Id extends ApiOperationId> = Promise<ApiResponseBody<Id> | ApiOutcome<Id> | Response>;

/** A handler answers its body (as JSON), or a Response it built itself: a streamed download (`mediaType` text/csv). */
type ApiHandler<Id extends ApiOperationId> = Id extends ServiceOperationId
  ? (call: ServiceApiCall<Id>) => ApiAnswer<Id>
  : (call: ApiCall<Id>) => ApiAnswer<Id>;

/** A success with a status other than the endpoint's usual one (e.g. 200 instead of 201 for a repeat). */
export class ApiOutcome<Id extends ApiOperationId> {
  constructor(
    readonly status: number,
    readonly body: ApiResponseBody<Id>,
    /** E.g. a 202's Location. */
    readonly headers?: Record<string, string>,
  ) {}
}

export function withStatus<Id extends ApiOperationId>(
  status: number,
  body: ApiResponseBody<Id>,
  headers?: Record<string, string>,
): ApiOutcome<Id> {
  return new ApiOutcome(status, body, headers);
}

/** Zod's issues as message keys of the "forms" namespace, per field; a message that is no key reads "input error". */
function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const name = issue.path.length > 0 ? issue.path.join(".") : "body";
    const key = issue.message.startsWith("validation.") ? issue.message : "validation.inputError";
    (fields[name] ??= []).push(key);
  }
  return fields;
}

async function validated(
  input: unknown,
  schema: z.ZodType,
  code: ApiErrorCode = "validation_failed",
): Promise<unknown> {
  const parsed = await schema.safeParseAsync(input);
  if (!parsed.success) throw new ApiError(code, { fields: fieldErrors(parsed.error) });
  return parsed.data;
}

/** "application/json; charset=utf-8" → "application/json". */
function mediaTypeOf(request: Request): string {
  return (request.headers.get("Content-Type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/**
 * The body is at most MAX_API_BODY_BYTES long: the HTTP layer read it within that limit (app/server/api-checks.ts). A body
 * that does not say it is JSON is 415, whatever it holds: an empty one (an endpoint whose fields are all optional)
 * needs no Content-Type.
 */
async function readJsonBody(request: Request, schema: z.ZodType): Promise<unknown> {
  const text = await request.text();
  if (text !== "" && mediaTypeOf(request) !== "application/json") throw new ApiError("unsupported_media_type");
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ApiError("bad_request");
  }
  return validated(json, schema);
}

/** Query parameters as one object; empty ones count as absent (the spec: callers omit them), a repeated one as its last. */
function readQuery(request: Request, schema: z.ZodType, code?: ApiErrorCode): Promise<unknown> {
  const entries = [...new URL(request.url).searchParams].filter(([, value]) => value !== "");
  return validated(Object.fromEntries(entries), schema, code);
}

type Method = "GET" | "POST" | "DELETE";
type Handlers = {
  [M in Method]?: { [Id in ApiOperationId]: { operation: Id; handle: ApiHandler<Id> } }[ApiOperationId];
};

/** What React Router gives an API route's loader and action, as its middleware gets it too. */
type RouteArgs = Parameters<typeof i18nextMiddleware>[0];

/**
 * An API route's answer, with what the root's middleware does for a page done here: the API's routes skip the
 * root's middleware (app/middleware/pages-only.server.ts). The request enters its log context, the HTTP layer learns the matched route's
 * pattern (its metrics' route name), and remix-i18next's middleware gives it its language (Accept-Language) and
 * i18next instance, for getLocale and getInstance.
 */
function withApiMiddleware(respond: (args: RouteArgs) => Promise<Response>) {
  return (args: RouteArgs): Promise<Response> => {
    const requestInfo = args.context.get(requestInfoContext);
    requestInfo.routePattern = args.pattern;
    return runWithRequestId(requestInfo.requestId, async () => {
      const response = await i18nextMiddleware(args, () => respond(args));
      if (!response) throw new Error("remix-i18next's middleware gave no response");
      return response;
    });
  };
}

/**
 * One resource route of the member API, per HTTP method: authenticate the bearer token (and, for an admin endpoint,
 * take only the staff app client's tokens and require the admin group in its `cognito:groups`; for a service
 * endpoint, take only a sibling service's feed token), parse and validate the query and the JSON body with the
 * endpoint's schemas from the contract, run the handler, answer JSON. Every failure, bad input
 * or a fault below, comes out as the one error envelope in the Accept-Language locale, never as an HTML page.
 */
export function apiRoute(handlers: Handlers) {
  const allowed = (Object.keys(handlers) as Method[]).join(", ");
  async function handle({ request, params, context }: RouteArgs): Promise<Response> {
    const locale = getLocale(context);
    const i18n = getInstance(context);
    const { requestId, clientIp } = context.get(requestInfoContext);
    try {
      const method = request.method.toUpperCase() === "HEAD" ? "GET" : request.method.toUpperCase();
      const route = handlers[method as Method];
      if (!route) throw new ApiError("method_not_allowed", { headers: { Allow: allowed } });
      const endpoint: ApiEndpoint = apiEndpoint(route.operation);
      const services = servicesOf(context);
      const caller =
        endpoint.access === "service"
          ? { service: authenticateService(request, services.config.siblingEvents) }
          : { member: await authenticateCaller(services, request, endpoint) };
      const query = endpoint.query ? await readQuery(request, endpoint.query, endpoint.queryError) : undefined;
      const body = endpoint.body ? await readJsonBody(request, endpoint.body) : undefined;
      // A raw body (the CSV import's file) is the handler's to read, in the one media type the contract names.
      if (endpoint.rawBody && mediaTypeOf(request) !== endpoint.rawBody.contentType) {
        throw new ApiError("unsupported_media_type");
      }
      const handler = route.handle as (call: ApiCallBase<ApiOperationId>) => ApiAnswer<ApiOperationId>;
      const result = await handler({
        request,
        ...caller,
        body: body as never,
        query: query as never,
        params,
        locale,
        i18n,
        clientIp,
        requestId,
        ...services,
      });
      if (result instanceof Response) return result;
      const {
        status,
        body: responseBody,
        headers,
      } = result instanceof ApiOutcome ? result : { status: endpoint.success.status, body: result, headers: undefined };
      return apiJson(responseBody, { status, locale, headers });
    } catch (error) {
      const translate = fixedTranslator(i18n, locale);
      return apiErrorResponse(toApiError(error, requestId), { translate, locale, requestId });
    }
  }
  const respond = withApiMiddleware(handle);
  return { loader: respond, action: respond };
}

/** A member's token, of the members' app client; for an admin endpoint, the staff client's, and staff now. */
async function authenticateCaller(services: AppServices, request: Request, endpoint: ApiEndpoint): Promise<ApiMember> {
  const { db, config } = services;
  const client = endpoint.access === "admin" ? "staff" : "member";
  const member = await authenticateBearer(request, { db, cognito: config.cognito, client });
  if (endpoint.access === "admin") await requireStaffNow(services, member);
  return member;
}

/**
 * An admin endpoint's caller must be staff now: the token names the admin group, and the member directory, which
 * reads the group from Cognito every few seconds, still has them in it unless the token is newer than that reading
 * (staffStandingNow): a member removed from the group is refused within a minute although their token still names
 * it. No recent reading: 503, never a guess.
 *
 * And the token must come from a sign-in with a second factor, which it cannot say itself (a Cognito access token
 * names no authentication method, and the staff client is public): for staff with the authenticator app on, Cognito
 * asks its code at every password sign-in, so a token signed in after the app was turned on (`auth_time`, kept
 * across refreshes) had the code or a passkey. `auth_time` is in whole seconds: a sign-in in the very second the app
 * was turned on cannot be told from one just before it, and is refused. Staff without the app, passkey-only staff
 * included, get staff-client tokens for the password alone: 403 authenticator_app_required.
 */
async function requireStaffNow(services: AppServices, member: ApiMember): Promise<void> {
  const { db, config, clock } = services;
  if (!member.groups.includes(config.adminGroup)) throw new ApiError("forbidden");
  const standing = await staffStandingNow(db, {
    sub: member.sub,
    staffGroup: config.adminGroup,
    tokenIssuedAt: member.issuedAt,
    now: clock.now(),
  });
  if (standing === "not-staff") throw new ApiError("forbidden");
  if (standing === "unverified") throw new ApiError("staff_rights_unverified", { headers: { "Retry-After": "20" } });
  const appOnSince = await authenticatorAppOnSince(db, member.sub);
  const signedInAfter = member.authTime && appOnSince && member.authTime.getTime() > appOnSince.getTime();
  if (!signedInAfter) throw new ApiError("authenticator_app_required");
}

/** Any other path under /api/: the envelope's 404, whatever the method, before any token check. */
export const apiNotFound = withApiMiddleware(async ({ context }) => {
  const locale = getLocale(context);
  const { requestId } = context.get(requestInfoContext);
  const translate = fixedTranslator(getInstance(context), locale);
  return apiErrorResponse(new ApiError("not_found"), { translate, locale, requestId });
});

/**
 * Counts one of the calling member's attempts at an action that calls Cognito or sends mail, per client IP and per
 * member, with the same counters as the pages (app/domain/limits/rate-limit.server.ts). A refusal is 429 with
 * Retry-After, before anything is asked upstream.
 */
export async function limitAttempts<Id extends ApiOperationId>(
  call: ApiCall<Id>,
  action: Exclude<LimitedAction, "signIn">,
): Promise<void> {
  const { db, clientIp, config } = call;
  refuseOverLimit(await countAttempt(db, { action, subject: call.member.sub, clientIp, overrides: config.rateLimits }));
}

/** Counts one read of the event feed by the calling service (FEED_READS_PER_SERVICE): 429 with Retry-After over it. */
export async function limitFeedReads<Id extends ServiceOperationId>(call: ServiceApiCall<Id>): Promise<void> {
  const result = await countFeedRead(call.db, call.service, call.clock.now());
  if (!result.allowed) {
    logger.warn({ policy: "FEED_READS_PER_SERVICE", service: call.service }, "rate limit reached");
    throw new ApiError("rate_limited", { headers: { "Retry-After": String(result.retryAfterS) } });
  }
}

function refuseOverLimit(result: AttemptResult | SignInReservation): void {
  if (result.allowed) return;
  logger.warn({ policy: result.policy, retryAfterS: result.retryAfterS }, "rate limit reached");
  throw new ApiError("rate_limited", { headers: { "Retry-After": String(result.retryAfterS) } });
}

/**
 * A call that changes how the account is reached or proven (the member's e-mail address, a device key claimed for
 * the member's sign-in) or a high-impact staff action (a member's e-mail, disabling, turning off 2-step
 * verification, a download of more members than one page of the list or of the newsletter's addresses, starting an
 * import) needs a sign-in within the last 10 minutes, by the app's clock: the token's `auth_time`, which a refresh
 * keeps, as the pages need a recent password (docs/security.md, "Sessions"). A token lifted from the shared cookie or a
 * staff tool, or a client left signed in and refreshing all day, cannot do them; 403 `reauthentication_required` before
 * anything is counted or asked upstream.
 */
export function requireRecentSignIn<Id extends ApiOperationId>(call: ApiCall<Id>): void {
  if (!signedInRecently(call.member.authTime, call.clock.now())) throw new ApiError("reauthentication_required");
}

/**
 * A password check the API does for the calling member (the cancellation's), counted as a sign-in at the member
 * sign-in's door (app/domain/limits/sign-in-failures.server.ts): per client, and a wrong password per account. A
 * sibling's server has no browser of the member's, so its refusals count as a stranger's. `settle` once the outcome
 * is known.
 */
export async function limitPasswordCheck<Id extends ApiOperationId>(
  call: ApiCall<Id>,
  email: string,
): Promise<{ settle(outcome: { refused: boolean }): Promise<void> }> {
  const { db, clientIp, config } = call;
  const reservation = await reserveSignInAttempt(db, {
    door: "member",
    email,
    deviceKey: null,
    clientIp,
    overrides: config.rateLimits,
  });
  refuseOverLimit(reservation);
  return {
    settle: (outcome) => (reservation.allowed ? settleSignInAttempt(db, reservation, outcome) : Promise.resolve()),
  };
}

/** The member record as the API shows it. */
export function memberBody(record: MemberRecord) {
  return { user: record };
}

/** The member's devices as the API lists them; `current` is the token's own sign-in. */
export async function deviceList(db: Database, member: ApiMember, config: Config) {
  const devices = await listActiveDevices(db, member.sub, { originJti: member.originJti ?? undefined });
  return {
    devices: devices.map((device) => ({
      key: device.deviceKey,
      name: device.deviceName,
      browser: device.browser,
      lastLoginAt: device.lastLoginAt.toISOString(),
      current: device.current,
    })),
    deviceLimit: config.deviceLimit,
    overLimit: devices.length > config.deviceLimit,
  };
}
