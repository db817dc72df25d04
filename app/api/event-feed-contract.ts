import { z } from "zod";
import {
  ACCOUNT_EVENT_TYPES,
  type AccountEvent,
  type AccountEventType,
  type SessionRevokedReason,
} from "~/domain/events/account-events.server";
import { AccountEventFeedParams } from "~/domain/events/event-feed.server";
import type { ApiEndpoint } from "./endpoint";

/**
 * What the sibling services hear of account events (app/domain/events/): the schema of every event type, as pushed
 * to their webhooks and read from the feed, and the feed's endpoint (access "service": a service's feed token, not
 * a member's). The OpenAPI document lists the events under `webhooks`, one entry per type.
 */

type EventDataOf<Type extends AccountEventType> = Extract<AccountEvent, { type: Type }>["data"];

/** Keyed by every reason, so a reason added to SessionRevokedReason without a line here fails to compile. */
const SESSION_REVOKED_REASONS = {
  "signed-out": "The member signed out in that browser.",
  "device-deactivated": "The member (or a sibling, through the API) deactivated the device.",
  "device-limit": "A new sign-in over the device limit replaced it.",
  "signed-out-everywhere": "The member signed out everywhere.",
  "password-changed": "The member changed the password.",
  "password-reset": "The password was reset.",
  "password-unconfirmed":
    "A password change or reset was cut off before it could be confirmed: the member signs in again to settle it.",
  "staff-ended-sessions": "Staff ended the member's sessions.",
  "staff-disabled": "Staff disabled the account.",
  "reported-not-me": "The member reported a sign-in as not theirs (the alert mail's link).",
  withdrawn: "The member cancelled the membership.",
  "refresh-refused": "Cognito refused the session's refresh token.",
  replaced: "A new sign-in in the same browser replaced it.",
} satisfies Record<SessionRevokedReason, string>;

const Sid = z
  .string()
  .describe(
    "The session as a sibling holds it: the `origin_jti` claim of every access token issued from that sign-in (the session's own id when Cognito gave none).",
  );
const NoData = z.strictObject({});

/** Each type's `data`; keyed by every type, and each schema's output must be that type's data. */
const EVENT_DATA_SCHEMAS: { [Type in AccountEventType]: z.ZodType<EventDataOf<Type>> } = {
  "member.created": z.object({
    email: z.string(),
    via: z.enum(["sign-up", "import", "legacy-migration"]).describe("How the account came to be."),
  }),
  "member.updated": z.object({
    changed: z
      .record(z.string(), z.unknown())
      .describe("The profile fields that changed, each with its new value (null when cleared)."),
  }),
  "member.email_changed": z.object({ email: z.string().describe("The member's address now (verified).") }),
  "member.password_changed": z.object({
    via: z.enum(["change", "reset", "first-sign-in"]).describe("The member changed it, reset it, or set it first."),
  }),
  "member.two_step_changed": z.object({
    authenticatorApp: z.boolean().describe("Whether 2-step verification with an authenticator app is on now."),
  }),
  "member.passkeys_changed": z.object({
    change: z.enum(["added", "removed"]),
    passkeys: z.int().min(0).describe("How many passkeys the member has now."),
  }),
  "member.newsletter_changed": z.object({ newsletter: z.boolean() }),
  "member.disabled": NoData,
  "member.enabled": NoData,
  "member.withdrawn": z.object({ withdrawnAt: z.iso.datetime() }),
  "member.deleted": NoData,
  "session.created": z.object({
    sid: Sid,
    device: z.string().describe('Operating system or device, e.g. "iOS 17.4".'),
    browser: z.string().describe('Browser and major version, e.g. "Safari 17".'),
  }),
  "session.revoked": z.object({
    sid: Sid,
    reason: z.enum(Object.keys(SESSION_REVOKED_REASONS) as [SessionRevokedReason, ...SessionRevokedReason[]]).describe(
      Object.entries(SESSION_REVOKED_REASONS)
        .map(([reason, meaning]) => `${reason}: ${meaning}`)
        .join(" "),
    ),
  }),
};

/** One event as every sibling receives it: a webhook's body, and (with its position) an entry of the feed. */
export function accountEventSchemaOf<Type extends AccountEventType>(type: Type) {
  return z.object({
    id: z.uuid().describe("The event's id, the same on every delivery (`webhook-id`): de-duplicate on it."),
    type: z.literal(type),
    timestamp: z.iso.datetime().describe("When the change happened."),
    sub: z.uuid().describe("The member's sub."),
    sequence: z
      .int()
      .min(1)
      .describe("1, 2, 3… per member, in the order of the member's changes: drop an event older than one you have."),
    data: EVENT_DATA_SCHEMAS[type],
  });
}

const FeedEventSchema = z.union(
  ACCOUNT_EVENT_TYPES.map((type) =>
    accountEventSchemaOf(type).extend({
      position: z.int().min(1).describe("The event's place in the feed."),
    }),
  ),
);

const FeedPageSchema = z.object({
  events: z.array(FeedEventSchema).describe("In feed order; empty when nothing newer was committed."),
  next_cursor: z
    .string()
    .describe("Send it as `after` next time: the last event's position, or the `after` you sent when none came."),
});

export const EVENT_FEED_API_ENDPOINTS = [
  {
    operationId: "listAccountEvents",
    method: "get",
    path: "/api/events",
    access: "service",
    query: AccountEventFeedParams,
    queryError: "invalid_feed_query",
    success: { status: 200, schema: FeedPageSchema },
    errors: ["cursor_expired"],
  },
] as const satisfies readonly ApiEndpoint[];
