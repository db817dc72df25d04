import type { z } from "zod";

/**
 * What every endpoint of the API's contract is made of (contract.ts lists them all): its method, path, schemas and
 * the error codes it answers.
 */

/** Stable error codes: callers branch on these, never on the message (which follows Accept-Language). */
export const API_ERROR_CODES = [
  "bad_request",
  "invalid_feed_query",
  "unauthorized",
  "forbidden",
  "staff_token_required",
  "authenticator_app_required",
  "reauthentication_required",
  "origin_not_allowed",
  "target_is_staff",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "email_unchanged",
  "email_unavailable",
  "email_update_expired",
  "cursor_expired",
  "password_mismatch",
  "invalid_refresh_token",
  "device_limit_exceeded",
  "identity_refused",
  "rate_limited",
  "mail_unavailable",
  "service_unavailable",
  "staff_rights_unverified",
  "internal_error",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Each code's one HTTP status. */
export const API_ERROR_STATUS: Record<ApiErrorCode, number> = {
  bad_request: 400,
  invalid_feed_query: 400,
  identity_refused: 400,
  unauthorized: 401,
  forbidden: 403,
  staff_token_required: 403,
  authenticator_app_required: 403,
  reauthentication_required: 403,
  origin_not_allowed: 403,
  target_is_staff: 403,
  not_found: 404,
  method_not_allowed: 405,
  device_limit_exceeded: 409,
  email_unavailable: 409,
  email_update_expired: 410,
  cursor_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  email_unchanged: 422,
  password_mismatch: 422,
  invalid_refresh_token: 422,
  rate_limited: 429,
  internal_error: 500,
  mail_unavailable: 503,
  service_unavailable: 503,
  staff_rights_unverified: 503,
};

/** A JSON body larger than this is refused (413) unread: well above the largest real one (a registration). */
export const MAX_API_BODY_BYTES = 32 * 1024;

/** What any endpoint may answer besides its own errors. */
export const COMMON_API_ERRORS = ["unauthorized", "rate_limited", "service_unavailable", "internal_error"] as const;

export type HttpMethod = "get" | "post" | "delete";

/**
 * Who may call an endpoint: any signed-in member (the default), only members of the admin group (ADMIN_GROUP), or a
 * sibling service with its own feed token (SERVICE_FEED_TOKENS_<S>), which speaks for no member.
 */
export type ApiAccess = "member" | "admin" | "service";

export interface ApiEndpoint {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template; `{name}` parameters. */
  path: string;
  /**
   * Admin endpoints take only the staff app client's tokens (a members' token: 403 `staff_token_required`), answer
   * a token without the admin group with 403 `forbidden`, and one of staff without the authenticator app (or signed
   * in before it was turned on) with 403 `authenticator_app_required`.
   */
  access?: ApiAccess;
  /** Query parameters, as one object of strings (empty ones are omitted by callers, and ignored). */
  query?: z.ZodType;
  /** The code a query that fails its schema answers: validation_failed (422) unless the endpoint names a 400. */
  queryError?: ApiErrorCode;
  /** Request body, for the endpoints that take one (JSON). */
  body?: z.ZodType;
  /** A body that is not JSON (the CSV import's file): read raw by the handler, up to its own size limit. */
  rawBody?: { contentType: string; maxBytes: number; description: string };
  /** The success status and its body; `repeat`: the status a repeated, idempotent call answers with the same body. */
  success: {
    status: 200 | 201 | 202;
    schema: z.ZodType;
    repeat?: { status: 200; description: string };
    /** A download streamed as CSV instead of JSON: the handler answers a Response (app/api/csv-response.server.ts). */
    mediaType?: "text/csv";
  };
  /** The error codes this endpoint answers besides the ones every endpoint may (401, 429, 503, 500). */
  errors: readonly ApiErrorCode[];
}

/**
 * Every code an endpoint may answer: its own, the common ones, 413 and 415 where it reads a body, its query error
 * (422 unless it names another) where it reads query parameters, and 403 where it needs the admin group (or the
 * staff client's token).
 */
export function errorCodesOf(endpoint: ApiEndpoint): ApiErrorCode[] {
  const codes: ApiErrorCode[] = [
    ...endpoint.errors,
    ...COMMON_API_ERRORS,
    ...(endpoint.body || endpoint.rawBody ? (["payload_too_large", "unsupported_media_type"] as const) : []),
    ...(endpoint.query ? [endpoint.queryError ?? "validation_failed"] : []),
    ...(endpoint.access === "admin"
      ? (["forbidden", "staff_token_required", "authenticator_app_required", "staff_rights_unverified"] as const)
      : []),
  ];
  return [...new Set(codes)];
}
