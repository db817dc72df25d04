import { z } from "zod";
import { ACCOUNT_EVENT_TYPES } from "~/domain/events/account-events.server";
import { RESOURCES } from "~/i18n/resources";
import { API_ENDPOINTS, ErrorEnvelopeSchema } from "./contract";
import { API_ERROR_CODES, API_ERROR_STATUS, type ApiEndpoint, type ApiErrorCode, errorCodesOf } from "./endpoint";
import { accountEventSchemaOf } from "./event-feed-contract";

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of what a caller sends ("input") or receives ("output"). */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  });
  return rest;
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

const PATH_PARAMETER_DESCRIPTIONS: Record<string, string> = {
  id: "The device key.",
  token: "The token from the confirmation link.",
  sub: "The member's sub (a UUID): 422 when malformed, 404 when no member has it.",
};

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name = ""]) => ({
    name,
    in: "path",
    required: true,
    schema: name === "sub" ? { type: "string", format: "uuid" } : { type: "string" },
    description: PATH_PARAMETER_DESCRIPTIONS[name],
  }));
}

/** One query parameter per property of the endpoint's query schema (an object of strings). */
function queryParameters(endpoint: ApiEndpoint) {
  if (!endpoint.query) return [];
  const schema = jsonSchemaOf(endpoint.query, "input");
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: "query",
      required: required.has(name),
      schema: propertySchema,
      ...(typeof description === "string" ? { description } : {}),
    };
  });
}

/** An endpoint's success response, and the one a repeated call gets where that differs (200 for 201). */
function successResponses(endpoint: ApiEndpoint) {
  const mediaType = endpoint.success.mediaType ?? "application/json";
  const content = { [mediaType]: { schema: jsonSchemaOf(endpoint.success.schema, "output") } };
  const { status, repeat } = endpoint.success;
  return {
    ...(repeat ? { [String(repeat.status)]: { description: repeat.description, content } } : {}),
    [String(status)]: { description: STATUS_TEXT[status], content },
  };
}

/** An endpoint's error responses, grouped by status; each lists the codes that status can carry. */
function errorResponses(endpoint: ApiEndpoint) {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of errorCodesOf(endpoint))
    byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, statusCodes]) => [
        String(status),
        {
          description: `${STATUS_TEXT[status] ?? "Error"}: ${statusCodes.join(", ")}`,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      ]),
  );
}

const TAG_OF_ACCESS = { member: "member", admin: "admin", service: "events" } as const;

/** The name of the webhook entry of the back-channel logout, beside one entry per event type. */
export const BACKCHANNEL_LOGOUT_WEBHOOK = "backchannel-logout";

/**
 * What the sibling services receive (OpenAPI 3.1 `webhooks`): each event type's Standard Webhooks POST, with its
 * body's schema and the signature headers, and the OpenID Connect back-channel logout POST.
 */
function webhooks(texts: (typeof RESOURCES)["en"]["api"]) {
  const headers = texts.webhookHeaders;
  const header = (name: string, description: string) => ({
    name,
    in: "header",
    required: true,
    schema: { type: "string" },
    description,
  });
  const signatureHeaders = [
    header("webhook-id", headers.webhookId),
    header("webhook-timestamp", headers.webhookTimestamp),
    header("webhook-signature", headers.webhookSignature),
  ];
  const responses = {
    "200": { description: headers.accepted },
    "410": { description: "Gone: the endpoint is disabled until staff enable it again." },
  };
  const events = ACCOUNT_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `event.${type}`,
        tags: ["events"],
        summary: texts.webhooks[type].summary,
        description: texts.webhooks[type].description,
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: { "application/json": { schema: jsonSchemaOf(accountEventSchemaOf(type), "output") } },
        },
        responses,
      },
    },
  ]);
  const logout = {
    post: {
      operationId: "backchannelLogout",
      tags: ["events"],
      summary: texts.webhooks.backchannelLogout.summary,
      description: texts.webhooks.backchannelLogout.description,
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: {
              type: "object",
              required: ["logout_token"],
              properties: { logout_token: { type: "string", description: "The signed JWT (JWS compact form)." } },
            },
          },
        },
      },
      responses: {
        "200": { description: "The session is ended (or was already)." },
        "400": { description: "The token does not verify: it is not sent again." },
      },
    },
  };
  return Object.fromEntries([...events, [BACKCHANNEL_LOGOUT_WEBHOOK, logout]]);
}

/**
 * The OpenAPI 3.1 document of the member API, the admin API (tagged "admin") and the account events (tagged
 * "events": the feed and the webhooks), built from the contract's Zod schemas (the ones the endpoints validate with)
 * and the English texts of the "api" namespace.
 */
export function buildOpenApiDocument(origin: string) {
  const texts = RESOURCES.en.api;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of API_ENDPOINTS as readonly ApiEndpoint[]) {
    const operation = texts.operations[endpoint.operationId as keyof typeof texts.operations];
    (paths[endpoint.path] ??= {})[endpoint.method] = {
      operationId: endpoint.operationId,
      tags: [TAG_OF_ACCESS[endpoint.access ?? "member"]],
      summary: operation.summary,
      description: operation.description,
      security: [endpoint.access === "service" ? { feedToken: [] } : { bearerAuth: [] }],
      parameters: [
        ...pathParameters(endpoint.path),
        ...queryParameters(endpoint),
        { $ref: "#/components/parameters/AcceptLanguage" },
      ],
      ...(endpoint.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchemaOf(endpoint.body, "input") } },
            },
          }
        : {}),
      ...(endpoint.rawBody
        ? {
            requestBody: {
              required: true,
              description: endpoint.rawBody.description,
              content: { [endpoint.rawBody.contentType]: { schema: { type: "string" } } },
            },
          }
        : {}),
      responses: {
        ...successResponses(endpoint),
        ...errorResponses(endpoint),
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: texts.reference.title,
      version: "1.0.0",
      description: [
        texts.reference.intro,
        texts.reference.auth,
        texts.reference.language,
        texts.reference.errors,
        texts.reference.cors,
        texts.reference.admin,
        texts.reference.events,
      ].join("\n\n"),
    },
    servers: [{ url: origin }],
    tags: [
      { name: "member", description: texts.reference.intro },
      { name: "admin", description: texts.reference.admin },
      { name: "events", description: texts.reference.events },
    ],
    paths,
    webhooks: webhooks(texts),
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: texts.reference.auth },
        feedToken: { type: "http", scheme: "bearer", description: texts.reference.feedAuth },
      },
      parameters: {
        AcceptLanguage: {
          name: "Accept-Language",
          in: "header",
          required: false,
          schema: { type: "string", examples: ["ja", "en"] },
          description: texts.reference.language,
        },
      },
      schemas: {
        Error: jsonSchemaOf(ErrorEnvelopeSchema, "output"),
        ErrorCode: { type: "string", enum: [...API_ERROR_CODES] },
      },
    },
  };
}
