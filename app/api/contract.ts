import { z } from "zod";
import { API_ERROR_CODES, type ApiEndpoint, MAX_API_BODY_BYTES } from "./endpoint";
import { CSV_IMPORT_API_ENDPOINTS } from "./csv-import-contract";
import { EVENT_FEED_API_ENDPOINTS } from "./event-feed-contract";
import { DeviceListSchema, MEMBER_API_ENDPOINTS } from "./member-api-contract";
import { STAFF_API_ENDPOINTS } from "./staff-api-contract";

/**
 * The API's contract: every endpoint with its request and response schemas, by audience (member-api-contract.ts,
 * staff-api-contract.ts, csv-import-contract.ts, event-feed-contract.ts). The route modules validate with these, and /api/openapi.json is
 * generated from them (app/api/openapi.ts), so the document cannot drift from what the code accepts. Objects
 * ignore unknown fields: no body can set a sub or a group.
 */

export const API_ENDPOINTS = [
  ...MEMBER_API_ENDPOINTS,
  ...STAFF_API_ENDPOINTS,
  ...CSV_IMPORT_API_ENDPOINTS,
  ...EVENT_FEED_API_ENDPOINTS,
] as const;

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

/** The request body limit of a path: an endpoint's own (rawBody), else MAX_API_BODY_BYTES. */
export function maxApiBodyBytesOf(pathname: string): number {
  const endpoint = (API_ENDPOINTS as readonly ApiEndpoint[]).find((candidate) => candidate.path === pathname);
  return endpoint?.rawBody?.maxBytes ?? MAX_API_BODY_BYTES;
}

export type ApiOperationId = (typeof API_ENDPOINTS)[number]["operationId"];
/** The endpoints a sibling service calls with its own token (access "service"), for no member. */
export type ServiceOperationId = Extract<(typeof API_ENDPOINTS)[number], { access: "service" }>["operationId"];
type EndpointById<Id extends ApiOperationId> = Extract<(typeof API_ENDPOINTS)[number], { operationId: Id }>;
export type ApiBody<Id extends ApiOperationId> =
  EndpointById<Id> extends { body: z.ZodType } ? z.output<EndpointById<Id>["body"]> : undefined;
export type ApiQuery<Id extends ApiOperationId> =
  EndpointById<Id> extends { query: z.ZodType } ? z.output<EndpointById<Id>["query"]> : undefined;
export type ApiResponseBody<Id extends ApiOperationId> = z.input<EndpointById<Id>["success"]["schema"]>;

export function apiEndpoint<Id extends ApiOperationId>(operationId: Id): EndpointById<Id> {
  return API_ENDPOINTS.find((endpoint) => endpoint.operationId === operationId) as EndpointById<Id>;
}
