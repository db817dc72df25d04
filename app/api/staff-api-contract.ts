import { z } from "zod";
import { MEMBER_STATUSES, MemberSearchParams } from "~/domain/staff/member-search.server";
import { AuditLogParams, STAFF_ACTIONS } from "~/domain/staff/staff-audit-log.server";
import {
  EmailAddressesExportParams,
  MemberExportParams,
  WithdrawalReasonsExportParams,
} from "~/domain/staff/export-params.server";
import type { ApiEndpoint } from "./endpoint";
import { EmailUpdateRequest, ProfileSchema } from "./member-api-contract";

/** The staff API (access "admin"): member search, a member's detail and the staff's actions on them, the downloads. */

const Timestamp = z.iso.datetime();

export const CsvFile = z
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
/** A change to a member's account: refused on a staff member's (staff-actions.server.ts). */
const CHANGING_A_MEMBER = [...ON_A_MEMBER, "target_is_staff"] as const;

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
const StaffTwoStepOff = z.object({
  twoStepVerification: z.literal(false),
  wasOn: z.boolean().describe("Whether the member had 2-step verification on (our record) before this call."),
});

export const STAFF_API_ENDPOINTS = [
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
    errors: [...CHANGING_A_MEMBER, "bad_request", "email_unchanged", "email_unavailable", "reauthentication_required"],
  },
  {
    operationId: "adminSignOutUser",
    method: "post",
    path: "/api/admin/users/{sub}/sign-out",
    access: "admin",
    success: { status: 200, schema: StaffSignOut },
    errors: CHANGING_A_MEMBER,
  },
  {
    operationId: "adminDisableUser",
    method: "post",
    path: "/api/admin/users/{sub}/disable",
    access: "admin",
    success: { status: 200, schema: StaffDisabled },
    errors: [...CHANGING_A_MEMBER, "reauthentication_required"],
  },
  {
    operationId: "adminEnableUser",
    method: "post",
    path: "/api/admin/users/{sub}/enable",
    access: "admin",
    success: { status: 200, schema: StaffEnabled },
    errors: CHANGING_A_MEMBER,
  },
  {
    operationId: "adminTurnOffTwoStep",
    method: "post",
    path: "/api/admin/users/{sub}/two-step-verification/disable",
    access: "admin",
    success: { status: 200, schema: StaffTwoStepOff },
    errors: [...CHANGING_A_MEMBER, "reauthentication_required"],
  },
  // ---- the staff's downloads (CSV, streamed) ----
  {
    operationId: "adminExportUsers",
    method: "get",
    path: "/api/admin/users.csv",
    access: "admin",
    query: MemberExportParams,
    success: { status: 200, schema: CsvFile, mediaType: "text/csv" },
    errors: ["reauthentication_required"],
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
    errors: ["reauthentication_required"],
  },
] as const satisfies readonly ApiEndpoint[];
