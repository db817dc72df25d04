import { z } from "zod";
import { EmailSchema, storableText } from "~/domain/forms/field-schemas";
import { AccountInfoFields, refineAccountInfo } from "~/domain/forms/sign-up-schemas";
import { WithdrawalApiSchema } from "~/domain/forms/withdrawal-schemas";
import { SERVICE_NAMES } from "~/domain/staff/member-search.server";
import type { ApiEndpoint } from "./endpoint";

/** The member API: what a signed-in member (or a sibling service with the member's token) may ask of their account. */

const DeviceSchema = z.object({
  key: z.string().describe("The browser's device key: the `{id}` of the device endpoints."),
  name: z.string().describe('Operating system or device, e.g. "iOS 17.4".'),
  browser: z.string().describe('Browser and major version, e.g. "Safari 17".'),
  lastLoginAt: z.iso.datetime(),
  current: z.boolean().describe("Whether this is the device the bearer token was issued to."),
});

export const DeviceListSchema = z.object({
  devices: z.array(DeviceSchema),
  deviceLimit: z.int().describe("How many devices may be logged in at once."),
  overLimit: z.boolean().describe("More devices than the limit (possible after the limit was lowered)."),
});

export const ProfileSchema = z.object({
  familyName: z.string().nullable(),
  givenName: z.string().nullable(),
  birthYear: z.int().nullable(),
  country: z.string().nullable(),
  prefecture: z.string().nullable(),
  occupation: z.string().nullable(),
  organization: z.string().nullable(),
  preferredLanguage: z.string(),
});

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
    twoStepVerification: z
      .boolean()
      .describe(
        "Whether the member logs in with 2-step verification (an authenticator app's code after the password).",
      ),
  }),
});

/** /api/refresh-user's member view: the member, and how the account is protected (counts only, never a secret). */
const RefreshedMemberResponse = z.object({
  user: MemberResponse.shape.user.extend({
    passkeyCount: z
      .int()
      .min(0)
      .describe("How many passkeys the member has registered (0: none). Nothing about the passkeys themselves."),
  }),
});

const RegistrationRequest = AccountInfoFields.extend({
  referrer: z
    .enum(SERVICE_NAMES, { error: "validation.selectError" })
    .nullable()
    .optional()
    .describe("The service the member signed up from; kept from the first registration."),
}).superRefine(refineAccountInfo);

export const EmailUpdateRequest = z.object({ email: EmailSchema });
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
    .describe("The refresh token of the login on this device; used to log the device out when it is deactivated."),
});

const OutdatedDeviceRemoval = z.object({ removed: z.int().describe("How many outdated entries were ended.") });

export const MEMBER_API_ENDPOINTS = [
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
    success: { status: 200, schema: RefreshedMemberResponse },
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
    errors: [
      "bad_request",
      "validation_failed",
      "reauthentication_required",
      "email_unchanged",
      "email_unavailable",
      "mail_unavailable",
    ],
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
      repeat: { status: 200, description: "OK: this login was registered on this device already; nothing changed." },
    },
    errors: [
      "bad_request",
      "validation_failed",
      "reauthentication_required",
      "invalid_refresh_token",
      "device_limit_exceeded",
    ],
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
