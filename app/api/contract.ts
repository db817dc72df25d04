import { z } from "zod";
import { AccountInfoFields, EmailSchema, refineAccountInfo, storableText } from "~/domain/auth-schemas";
import { SERVICE_NAMES } from "~/domain/member-search.server";
import { WithdrawalApiSchema } from "~/domain/withdrawal-schema";

/**
 * The member API's contract: every endpoint with its request and response schemas. The route modules validate
 * with these, and /api/openapi.json is generated from them (app/api/openapi.ts), so the document cannot drift
 * from what the code accepts. Objects ignore unknown fields: no body can set a sub or a group.
 */

/** Stable error codes: callers branch on these, never on the message (which follows Accept-Language). */
export const API_ERROR_CODES = [
  "bad_request",
  "unauthorized",
  "forbidden",
  "origin_not_allowed",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "validation_failed",
  "email_unchanged",
  "email_unavailable",
  "email_update_expired",
  "password_mismatch",
  "invalid_refresh_token",
  "device_limit_exceeded",
  "identity_refused",
  "rate_limited",
  "mail_unavailable",
  "service_unavailable",
  "internal_error",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Each code's one HTTP status. */
export const API_ERROR_STATUS: Record<ApiErrorCode, number> = {
  bad_request: 400,
  identity_refused: 400,
  unauthorized: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  device_limit_exceeded: 409,
  email_unavailable: 409,
  email_update_expired: 410,
  payload_too_large: 413,
  validation_failed: 422,
  email_unchanged: 422,
  password_mismatch: 422,
  invalid_refresh_token: 422,
  rate_limited: 429,
  internal_error: 500,
  mail_unavailable: 503,
  service_unavailable: 503,
};

/** A JSON body larger than this is refused (413) unread: well above the largest real one (a registration). */
export const MAX_API_BODY_BYTES = 32 * 1024;

/** What any endpoint may answer besides its own errors. */
export const COMMON_API_ERRORS = ["unauthorized", "rate_limited", "service_unavailable", "internal_error"] as const;

export { SERVICE_NAMES };

const DeviceSchema = z.object({
  key: z.string().describe("The browser's device key: the `{id}` of the device endpoints."),
  name: z.string().describe('Operating system or device, e.g. "iOS 17.4".'),
  browser: z.string().describe('Browser and major version, e.g. "Safari 17".'),
  lastLoginAt: z.iso.datetime(),
  current: z.boolean().describe("Whether this is the device the bearer token was issued to."),
});

export const DeviceListSchema = z.object({
  devices: z.array(DeviceSchema),
  deviceLimit: z.int().describe("How many devices may be signed in at once."),
  overLimit: z.boolean().describe("More devices than the limit (possible after the limit was lowered)."),
});

const ProfileSchema = z.object({
  familyName: z.string().nullable(),
  givenName: z.string().nullable(),
  birthYear: z.int().nullable(),
  country: z.string().nullable(),
  prefecture: z.string().nullable(),
  occupation: z.string().nullable(),
  organization: z.string().nullable(),
  preferredLanguage: z.string(),
});

export const ErrorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(API_ERROR_CODES),
    message: z.string().describe("For people, in the Accept-Language locale (ja or en)."),
    requestId: z.string().describe("Quote it when asking us about a failure."),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .describe("validation_failed: messages per request field."),
    devices: DeviceListSchema.optional().describe("device_limit_exceeded: the devices to choose from."),
  }),
});

export type HttpMethod = "get" | "post" | "delete";

export interface ApiEndpoint {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template; `{name}` parameters. */
  path: string;
  /** Request body, for the endpoints that take one (JSON). */
  body?: z.ZodType;
  /** The success status and its body; `repeat`: the status a repeated, idempotent call answers with the same body. */
  success: { status: 200 | 201 | 202; schema: z.ZodType; repeat?: { status: 200; description: string } };
  /** The error codes this endpoint answers besides the ones every endpoint may (401, 429, 503, 500). */
  errors: readonly ApiErrorCode[];
}

const AvailabilityRequest = z.object({ email: EmailSchema });
const AvailabilityResponse = z.object({
  email: z.string(),
  available: z.boolean().describe("True when no other member uses the address."),
});

const RefreshUserRequest = z.object({ userSub: z.uuid("validation.inputError") });
const MemberResponse = z.object({
  user: z.object({
    sub: z.uuid(),
    email: z.string(),
    emailVerified: z.boolean(),
    profile: ProfileSchema.nullable().describe("Null until the member has filled in the membership information."),
  }),
});

const RegistrationRequest = AccountInfoFields.extend({
  referrer: z
    .enum(SERVICE_NAMES, { error: "validation.selectError" })
    .nullable()
    .optional()
    .describe("The service the member signed up from; kept from the first registration."),
}).superRefine(refineAccountInfo);

const EmailUpdateRequest = z.object({ email: EmailSchema });
const EmailUpdateRequested = z.object({
  email: z.string().describe("The new address, where the confirmation link was sent."),
  expiresAt: z.iso.datetime().describe("The link works until then (one hour)."),
});
const EmailUpdated = z.object({ email: z.string().describe("The member's address now.") });

const WithdrawalResponse = z.object({
  cancelled: z.literal(true),
  endedSessions: z.int(),
});

const DeviceRegistrationRequest = z.object({
  refreshToken: storableText()
    .min(1, "validation.required")
    .max(8192, "validation.inputError")
    .describe("The refresh token of the sign-in on this device; used to sign the device out when it is deactivated."),
});

const OutdatedDeviceRemoval = z.object({ removed: z.int().describe("How many outdated entries were ended.") });

export const API_ENDPOINTS = [
  {
    operationId: "checkUserAvailability",
    method: "post",
    path: "/api/user-availability",
    body: AvailabilityRequest,
    success: { status: 200, schema: AvailabilityResponse },
    errors: ["bad_request", "validation_failed"],
  },
  {
    operationId: "refreshUser",
    method: "post",
    path: "/api/refresh-user",
    body: RefreshUserRequest,
    success: { status: 200, schema: MemberResponse },
    errors: ["bad_request", "validation_failed", "forbidden"],
  },
  {
    operationId: "registerUser",
    method: "post",
    path: "/api/user-registration",
    body: RegistrationRequest,
    success: { status: 200, schema: MemberResponse },
    errors: ["bad_request", "validation_failed", "identity_refused"],
  },
  {
    operationId: "requestEmailUpdate",
    method: "post",
    path: "/api/email-updates",
    body: EmailUpdateRequest,
    success: { status: 202, schema: EmailUpdateRequested },
    errors: ["bad_request", "validation_failed", "email_unchanged", "email_unavailable", "mail_unavailable"],
  },
  {
    operationId: "confirmEmailUpdate",
    method: "post",
    path: "/api/email-updates/{token}",
    success: { status: 200, schema: EmailUpdated },
    errors: ["email_update_expired", "email_unavailable"],
  },
  {
    operationId: "cancelMembership",
    method: "post",
    path: "/api/withdrawal-reasons",
    body: WithdrawalApiSchema,
    success: { status: 200, schema: WithdrawalResponse },
    errors: ["bad_request", "validation_failed", "password_mismatch"],
  },
  {
    operationId: "listUserDevices",
    method: "get",
    path: "/api/user-devices",
    success: { status: 200, schema: DeviceListSchema },
    errors: [],
  },
  {
    operationId: "registerUserDevice",
    method: "post",
    path: "/api/user-devices/{id}",
    body: DeviceRegistrationRequest,
    success: {
      status: 201,
      schema: DeviceListSchema,
      repeat: { status: 200, description: "OK: this sign-in was registered on this device already; nothing changed." },
    },
    errors: ["bad_request", "validation_failed", "invalid_refresh_token", "device_limit_exceeded"],
  },
  {
    operationId: "deactivateUserDevice",
    method: "delete",
    path: "/api/user-devices/{id}",
    success: { status: 200, schema: DeviceListSchema },
    errors: ["not_found"],
  },
  {
    operationId: "removeOutdatedSafariDevice",
    method: "delete",
    path: "/api/old-safari-device",
    success: { status: 200, schema: OutdatedDeviceRemoval },
    errors: [],
  },
] as const satisfies readonly ApiEndpoint[];

export type ApiOperationId = (typeof API_ENDPOINTS)[number]["operationId"];
type EndpointById<Id extends ApiOperationId> = Extract<(typeof API_ENDPOINTS)[number], { operationId: Id }>;
export type ApiBody<Id extends ApiOperationId> =
  EndpointById<Id> extends { body: z.ZodType } ? z.output<EndpointById<Id>["body"]> : undefined;
export type ApiResponseBody<Id extends ApiOperationId> = z.input<EndpointById<Id>["success"]["schema"]>;

/** Every code an endpoint may answer: its own, the common ones, and 413 where it reads a body. */
export function errorCodesOf(endpoint: ApiEndpoint): ApiErrorCode[] {
  return [...endpoint.errors, ...COMMON_API_ERRORS, ...(endpoint.body ? (["payload_too_large"] as const) : [])];
}

export function apiEndpoint<Id extends ApiOperationId>(operationId: Id): EndpointById<Id> {
  return API_ENDPOINTS.find((endpoint) => endpoint.operationId === operationId) as EndpointById<Id>;
}
