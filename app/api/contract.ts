import { z } from "zod";
import { AccountInfoFields, EmailSchema, refineAccountInfo, storableText } from "~/domain/forms/auth-schemas";
import { SERVICE_NAMES } from "~/domain/staff/member-search.server";
import { MEMBER_STATUSES, MemberSearchParams } from "~/domain/staff/member-search.server";
import { AuditLogParams, STAFF_ACTIONS } from "~/domain/staff/staff-audit-log.server";
import {
  EmailAddressesExportParams,
  MemberExportParams,
  WithdrawalReasonsExportParams,
} from "~/domain/staff/export-params.server";
import { WithdrawalApiSchema } from "~/domain/forms/withdrawal-schema";
import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_MAX_FILE_BYTES,
  CSV_IMPORT_MAX_ROWS,
} from "~/domain/csv-import/csv-import-file.server";
import { CSV_ENCODINGS } from "~/domain/staff/spreadsheet-csv.server";

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

/** Who may call an endpoint: any signed-in member (the default), or only members of the admin group (ADMIN_GROUP). */
export type ApiAccess = "member" | "admin";

export interface ApiEndpoint {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template; `{name}` parameters. */
  path: string;
  /** Admin endpoints answer a token without the admin group with 403 `forbidden`. */
  access?: ApiAccess;
  /** Query parameters, as one object of strings (empty ones are omitted by callers, and ignored). */
  query?: z.ZodType;
  /** Request body, for the endpoints that take one (JSON). */
  body?: z.ZodType;
  /** A body that is not JSON (the CSV import's file): read raw by the handler, up to its own size limit. */
  rawBody?: { contentType: string; maxBytes: number; description: string };
  /** The success status and its body; `repeat`: the status a repeated, idempotent call answers with the same body. */
  success: {
    status: 200 | 201 | 202;
    schema: z.ZodType;
    repeat?: { status: 200; description: string };
    /** A download streamed as CSV instead of JSON: the handler answers a Response (app/routing/csv-download.server.ts). */
    mediaType?: "text/csv";
  };
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

// ---- the admin API (staff; access "admin") ----

const Timestamp = z.iso.datetime();

const CsvFile = z
  .string()
  .describe(
    "A CSV file (RFC 4180, CRLF): UTF-8 with a BOM (for Excel) or Shift_JIS (CP932) as asked; cells that could start " +
      "a formula begin with a quote ('); times are Japan time (yyyy-mm-dd hh:mm:ss).",
  );

const ListedMember = z.object({
  sub: z.uuid(),
  email: z.string(),
  emailVerified: z.boolean(),
  status: z.enum(MEMBER_STATUSES),
  enabled: z.boolean(),
  locale: z.string().nullable(),
  familyName: z.string().nullable(),
  givenName: z.string().nullable(),
  referrerService: z.string().nullable(),
  signedUpAt: Timestamp,
  cancelledAt: Timestamp.nullable(),
  legacyMigratedAt: Timestamp.nullable(),
});
const MemberPage = z.object({
  members: z.array(ListedMember),
  nextCursor: z.string().nullable().describe("Pass as `after` for the next page; null on the last page."),
  previousCursor: z.string().nullable().describe("Pass as `before` for the previous page; null on the first page."),
});
const MemberCount = z.object({
  count: z.int().describe("Members matching the filters (the paging parameters aside)."),
});

const UserPoolSummary = z.object({
  id: z.string(),
  name: z.string(),
  estimatedUsers: z.int().describe("Cognito's estimate (DescribeUserPool), not a count."),
  passwordPolicy: z.object({
    minimumLength: z.int(),
    requireUppercase: z.boolean(),
    requireLowercase: z.boolean(),
    requireNumbers: z.boolean(),
    requireSymbols: z.boolean(),
    temporaryPasswordValidityDays: z.int(),
  }),
  deviceLimit: z.int(),
  directory: z
    .object({
      lastReconcile: z
        .object({
          startedAt: Timestamp,
          finishedAt: Timestamp.nullable(),
          status: z.string(),
          usersSeen: z.int(),
          pagesRead: z.int(),
          drift: z.object({
            added: z.int(),
            changed: z.int(),
            missing: z.int(),
            examples: z
              .array(
                z.object({
                  sub: z.string(),
                  kind: z.enum(["added", "changed", "missing"]),
                  fields: z.array(z.string()).optional(),
                }),
              )
              .describe("A few of the drifted users, with the fields that differed."),
          }),
          lastError: z.string().nullable(),
        })
        .nullable()
        .describe("The latest walk of the pool that fixed the directory's drift; null before the first."),
    })
    .describe("How fresh the directory that search runs on is."),
});

const DirectoryEntrySchema = z.object({
  username: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  cognitoStatus: z.string(),
  enabled: z.boolean(),
  status: z.enum(MEMBER_STATUSES),
  signedUpAt: Timestamp,
  cognitoUpdatedAt: Timestamp,
  locale: z.string().nullable(),
  familyName: z.string().nullable(),
  givenName: z.string().nullable(),
  groups: z.array(z.string()),
  referrerService: z.string().nullable(),
  cancelledAt: Timestamp.nullable(),
  legacyMigratedAt: Timestamp.nullable(),
  syncedAt: Timestamp,
  seenInCognitoAt: Timestamp.nullable(),
  missingFromCognitoAt: Timestamp.nullable(),
});
/** The member API's profile with what staff see besides: the answers, the referrer and the bookkeeping. */
const StoredProfileSchema = ProfileSchema.extend({
  questionnaire: z.record(z.string(), z.unknown()).nullable(),
  referrerService: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  cancelledAt: Timestamp.nullable(),
  cognitoDeletedAt: Timestamp.nullable(),
});
const AuditEventSchema = z.object({
  id: z.int(),
  occurredAt: Timestamp,
  actorSub: z.uuid(),
  actorEmail: z.string(),
  action: z.enum(STAFF_ACTIONS),
  targetSub: z.uuid().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  requestId: z.string(),
});
const AuditEventPage = z.object({
  events: z.array(AuditEventSchema).describe("Newest first."),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
});
const MemberDetailSchema = z.object({
  sub: z.uuid(),
  directory: DirectoryEntrySchema.nullable().describe(
    "The mirror of the Cognito user; null when only a profile is left.",
  ),
  profile: StoredProfileSchema.nullable(),
  sessions: z.array(
    z.object({
      id: z.uuid(),
      deviceName: z.string(),
      browser: z.string(),
      createdAt: Timestamp,
      lastLoginAt: Timestamp,
      activatedAt: Timestamp.nullable(),
      revokedAt: Timestamp.nullable(),
      live: z.boolean(),
    }),
  ),
  emailChanges: z.array(
    z.object({
      oldEmail: z.string(),
      newEmail: z.string(),
      requestedAt: Timestamp,
      expiresAt: Timestamp,
      usedAt: Timestamp.nullable(),
      state: z.enum(["used", "pending", "expired"]),
    }),
  ),
  cancellation: z
    .object({ reason: z.string(), detail: z.string().nullable(), locale: z.string(), cancelledAt: Timestamp })
    .nullable(),
  legacy: z.object({ email: z.string(), importedAt: Timestamp, migratedAt: Timestamp.nullable() }).nullable(),
  auditEvents: z.array(AuditEventSchema).describe("The staff actions on this member, newest first (the latest 50)."),
});
const StaffRefreshed = z.object({
  missing: z.boolean().describe("Cognito has no such user any longer; the directory now says so."),
  changes: z
    .record(z.string(), z.object({ before: z.unknown(), after: z.unknown() }))
    .describe("Each directory field Cognito's answer changed, with its value before and after."),
});

/** What an admin endpoint on one member (`{sub}`) may answer: a malformed sub (422), an unknown one (404). */
const ON_A_MEMBER = ["validation_failed", "not_found"] as const;

// ---- the staff CSV import (app/domain/csv-import/csv-import-job.server.ts)
const CsvImportQuery = z.object({
  dryRun: z.enum(["true", "false"], { error: "validation.inputError" }).optional().describe("true: validate only."),
  fileName: storableText().trim().max(200, "validation.tooLong").optional().describe("Shown to staff with the job."),
});
const CsvImportFailedRowsQuery = z.object({
  encoding: z.enum(CSV_ENCODINGS, { error: "validation.inputError" }).default("utf-8"),
  locale: z.enum(["ja", "en"], { error: "validation.inputError" }).optional().describe("The reasons' language."),
});
const CsvImportProblemSchema = z.object({
  row: z.int().nullable().describe("The row as Excel numbers it (the header is row 1); null: the whole file."),
  column: z.string().nullable(),
  code: z.string().describe("A stable code, e.g. invalidEmail, duplicateInFile, alreadyMember, formula."),
  value: z.string().nullable().describe("The offending value, cut short."),
  otherRow: z.int().optional().describe("duplicateInFile: the other row with the address."),
  message: z.string(),
});
const CsvImportReportSchema = z.object({
  fileName: z.string(),
  encoding: z.enum(CSV_ENCODINGS).nullable(),
  totalRows: z.int(),
  problemCount: z.int().describe("Every problem found; `problems` lists the first ones."),
  problems: z.array(CsvImportProblemSchema),
});
const CsvImportJobSchema = z.object({
  id: z.uuid(),
  state: z.enum(["validated", "queued", "running", "cancelled", "completed"]),
  fileName: z.string(),
  encoding: z.enum(CSV_ENCODINGS),
  totalRows: z.int(),
  createdBy: z.object({ sub: z.uuid(), email: z.string() }),
  createdAt: z.iso.datetime(),
  queuedAt: z.iso.datetime().nullable(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  counts: z.object({ created: z.int(), failed: z.int(), skipped: z.int(), pending: z.int(), inFlight: z.int() }),
  done: z.int(),
  remaining: z.int(),
  creationsPerSecond: z.number().nullable(),
  achievedPerSecond: z.number().nullable(),
  etaSeconds: z.int().nullable(),
});
const CsvImportAccepted = z.object({
  report: CsvImportReportSchema,
  job: CsvImportJobSchema.nullable().describe("The job, started; null for a dry run."),
});

const StaffEmailUpdated = z.object({
  oldEmail: z.string(),
  newEmail: z.string().describe("The member's address now, verified."),
  voidedLinks: z.int().describe("The member's own pending e-mail change links that stopped working."),
  notified: z
    .object({ oldAddress: z.boolean(), newAddress: z.boolean() })
    .describe("Whether each notice reached the mail server; a failed notice does not undo the change."),
});
const StaffSignOut = z.object({
  endedSessions: z.int().describe("How many of the member's sessions ended."),
  globalSignOut: z
    .boolean()
    .describe("Whether Cognito signed the member out everywhere (else the ended sessions were revoked one by one)."),
});
const StaffDisabled = StaffSignOut.extend({ enabled: z.literal(false) });
const StaffEnabled = z.object({ enabled: z.literal(true) });

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
  {
    operationId: "adminListUsers",
    method: "get",
    path: "/api/admin/users",
    access: "admin",
    query: MemberSearchParams,
    success: { status: 200, schema: MemberPage },
    errors: [],
  },
  {
    operationId: "adminCountUsers",
    method: "get",
    path: "/api/admin/users/count",
    access: "admin",
    query: MemberSearchParams,
    success: { status: 200, schema: MemberCount },
    errors: [],
  },
  {
    operationId: "adminGetUserPool",
    method: "get",
    path: "/api/admin/user-pool",
    access: "admin",
    success: { status: 200, schema: UserPoolSummary },
    errors: [],
  },
  {
    operationId: "adminGetUser",
    method: "get",
    path: "/api/admin/users/{sub}",
    access: "admin",
    success: { status: 200, schema: MemberDetailSchema },
    errors: ON_A_MEMBER,
  },
  {
    operationId: "adminListAuditEvents",
    method: "get",
    path: "/api/admin/audit-events",
    access: "admin",
    query: AuditLogParams,
    success: { status: 200, schema: AuditEventPage },
    errors: [],
  },
  {
    operationId: "adminRefreshUser",
    method: "post",
    path: "/api/admin/users/{sub}/refresh",
    access: "admin",
    success: { status: 200, schema: StaffRefreshed },
    errors: ON_A_MEMBER,
  },
  {
    operationId: "adminChangeUserEmail",
    method: "post",
    path: "/api/admin/email-updates/{sub}",
    access: "admin",
    body: EmailUpdateRequest,
    success: { status: 200, schema: StaffEmailUpdated },
    errors: [...ON_A_MEMBER, "bad_request", "email_unchanged", "email_unavailable"],
  },
  {
    operationId: "adminSignOutUser",
    method: "post",
    path: "/api/admin/users/{sub}/sign-out",
    access: "admin",
    success: { status: 200, schema: StaffSignOut },
    errors: ON_A_MEMBER,
  },
  {
    operationId: "adminDisableUser",
    method: "post",
    path: "/api/admin/users/{sub}/disable",
    access: "admin",
    success: { status: 200, schema: StaffDisabled },
    errors: ON_A_MEMBER,
  },
  {
    operationId: "adminEnableUser",
    method: "post",
    path: "/api/admin/users/{sub}/enable",
    access: "admin",
    success: { status: 200, schema: StaffEnabled },
    errors: ON_A_MEMBER,
  },
  // ---- the staff's downloads (CSV, streamed) ----
  {
    operationId: "adminExportUsers",
    method: "get",
    path: "/api/admin/users.csv",
    access: "admin",
    query: MemberExportParams,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: [],
  },
  {
    operationId: "adminExportWithdrawalReasons",
    method: "get",
    path: "/api/admin/downloads/withdrawal-reasons",
    access: "admin",
    query: WithdrawalReasonsExportParams,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: [],
  },
  {
    operationId: "adminExportEmailAddresses",
    method: "get",
    path: "/api/admin/downloads/email-addresses",
    access: "admin",
    query: EmailAddressesExportParams,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: [],
  },
  {
    operationId: "adminCsvImportUserCreate",
    method: "post",
    path: "/api/admin/csv-import/user-create",
    access: "admin",
    query: CsvImportQuery,
    rawBody: {
      contentType: "text/csv",
      maxBytes: CSV_IMPORT_MAX_FILE_BYTES,
      description: `The members to create, as CSV (UTF-8 with or without BOM, or Shift_JIS/CP932): a header row of ${CSV_IMPORT_COLUMNS.join(", ")}, then at most ${CSV_IMPORT_MAX_ROWS} rows.`,
    },
    success: {
      status: 202,
      schema: CsvImportAccepted,
      repeat: { status: 200, description: "A dry run (`dryRun=true`): the file is clean; nothing is stored." },
    },
    errors: ["validation_failed", "payload_too_large"],
  },
  {
    operationId: "adminCsvImportJob",
    method: "get",
    path: "/api/admin/csv-import/jobs/{id}",
    access: "admin",
    success: { status: 200, schema: CsvImportJobSchema },
    errors: ["not_found"],
  },
  {
    operationId: "adminCsvImportCancel",
    method: "post",
    path: "/api/admin/csv-import/jobs/{id}/cancel",
    access: "admin",
    success: { status: 200, schema: CsvImportJobSchema },
    errors: ["not_found"],
  },
  {
    operationId: "adminCsvImportFailedRows",
    method: "get",
    path: "/api/admin/csv-import/jobs/{id}/failed-rows.csv",
    access: "admin",
    query: CsvImportFailedRowsQuery,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: ["not_found"],
  },
] as const satisfies readonly ApiEndpoint[];

/** The request body limit of a path: an endpoint's own (rawBody), else MAX_API_BODY_BYTES. */
export function maxApiBodyBytesOf(pathname: string): number {
  const endpoint = (API_ENDPOINTS as readonly ApiEndpoint[]).find((candidate) => candidate.path === pathname);
  return endpoint?.rawBody?.maxBytes ?? MAX_API_BODY_BYTES;
}

export type ApiOperationId = (typeof API_ENDPOINTS)[number]["operationId"];
type EndpointById<Id extends ApiOperationId> = Extract<(typeof API_ENDPOINTS)[number], { operationId: Id }>;
export type ApiBody<Id extends ApiOperationId> =
  EndpointById<Id> extends { body: z.ZodType } ? z.output<EndpointById<Id>["body"]> : undefined;
export type ApiQuery<Id extends ApiOperationId> =
  EndpointById<Id> extends { query: z.ZodType } ? z.output<EndpointById<Id>["query"]> : undefined;
export type ApiResponseBody<Id extends ApiOperationId> = z.input<EndpointById<Id>["success"]["schema"]>;

/**
 * Every code an endpoint may answer: its own, the common ones, 413 where it reads a body, 422 where it reads query
 * parameters, and 403 where it needs the admin group.
 */
export function errorCodesOf(endpoint: ApiEndpoint): ApiErrorCode[] {
  const codes: ApiErrorCode[] = [
    ...endpoint.errors,
    ...COMMON_API_ERRORS,
    ...(endpoint.body || endpoint.rawBody ? (["payload_too_large"] as const) : []),
    ...(endpoint.query ? (["validation_failed"] as const) : []),
    ...(endpoint.access === "admin" ? (["forbidden"] as const) : []),
  ];
  return [...new Set(codes)];
}

export function apiEndpoint<Id extends ApiOperationId>(operationId: Id): EndpointById<Id> {
  return API_ENDPOINTS.find((endpoint) => endpoint.operationId === operationId) as EndpointById<Id>;
}
