import { Validator } from "@seriousme/openapi-schema-validator";
import { expect, test } from "vitest";
import { API_ENDPOINTS } from "~/api/contract";
import { API_ERROR_CODES, API_ERROR_STATUS } from "~/api/endpoint";
import { ApiError, toApiError } from "~/api/api-response.server";
import { BACKCHANNEL_LOGOUT_WEBHOOK, buildOpenApiDocument } from "~/api/openapi";
import { ACCOUNT_EVENT_TYPES } from "~/domain/events/account-events.server";
import { DomainError } from "~/domain/domain-error.server";
import { getApiReference } from "~/routes/default/docs-api.server";
import { LOCALES } from "~/i18n/locales";
import { RESOURCES } from "~/i18n/resources";
import { IdentityError } from "~/integrations/cognito/cognito-errors.server";
import { logger } from "~/integrations/logger.server";
import { MailUnavailableError } from "~/integrations/mailer.server";
import { isDatabaseUnavailable } from "~db/client.server";

test("every error code has a status and a message in both languages; every operation is described in both", () => {
  for (const locale of LOCALES) {
    const texts = RESOURCES[locale].api;
    for (const code of API_ERROR_CODES) {
      expect(API_ERROR_STATUS[code], code).toBeGreaterThanOrEqual(400);
      expect(texts.errors[code], `${locale} ${code}`).toMatch(/\S/);
    }
    for (const { operationId } of API_ENDPOINTS) {
      const operation = texts.operations[operationId];
      expect(operation.summary, `${locale} ${operationId}`).toMatch(/\S/);
      expect(operation.description, `${locale} ${operationId}`).toMatch(/\S/);
    }
  }
});

test("faults below the API become the envelope's codes: Cognito by the one error table, mail, database, bugs", () => {
  // The bug and database cases are logged as errors on purpose; not in this test's output.
  logger.level = "silent";
  const codeOf = (error: unknown) => toApiError(error, "request-1");
  expect(codeOf(new IdentityError("unavailable", "AdminGetUser"))).toMatchObject({
    code: "service_unavailable",
    status: 503,
  });
  expect(codeOf(new IdentityError("throttled", "AdminGetUser"))).toMatchObject({ code: "rate_limited", status: 429 });
  expect(codeOf(new IdentityError("emailUnavailable", "AdminUpdateUserAttributes"))).toMatchObject({
    code: "email_unavailable",
    status: 409,
  });
  expect(codeOf(new IdentityError("invalidInput", "AdminUpdateUserAttributes"))).toMatchObject({
    code: "identity_refused",
    status: 400,
  });
  expect(codeOf(new MailUnavailableError("smtp down"))).toMatchObject({ code: "mail_unavailable", status: 503 });
  const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  expect(codeOf(new Error("Failed query", { cause: refused }))).toMatchObject({
    code: "service_unavailable",
    status: 503,
  });
  expect(codeOf(new DomainError("memberNotFound"))).toMatchObject({ code: "not_found", status: 404 });
  expect(codeOf(new TypeError("x is undefined"))).toMatchObject({ code: "internal_error", status: 500 });
  const own = new ApiError("not_found");
  expect(codeOf(own)).toBe(own);
});

test("database faults are told apart from bugs, through wrapped causes", () => {
  expect(isDatabaseUnavailable(Object.assign(new Error("terminating"), { code: "57P01" }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("too many clients"), { code: "53300" }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  expect(isDatabaseUnavailable(new Error("plain"))).toBe(false);
  expect(isDatabaseUnavailable("not an error")).toBe(false);
});

test("the OpenAPI document lists a repeated device registration's 200 beside the first one's 201, with the same body", () => {
  const paths = buildOpenApiDocument("https://id.example.jp").paths as Record<
    string,
    Record<string, { responses: Record<string, { content: unknown; description: string }> }>
  >;
  const responses = paths["/api/user-devices/{id}"]!.post!.responses;
  expect(Object.keys(responses)).toEqual(expect.arrayContaining(["200", "201"]));
  expect(responses["200"]!.content).toEqual(responses["201"]!.content);
  expect(responses["200"]!.description).toMatch(/already/);
});

test("the admin endpoints live under /api/admin/, are tagged admin and document their 403; no member endpoint is", () => {
  const paths = buildOpenApiDocument("https://id.example.jp").paths as Record<
    string,
    Record<string, { tags: string[]; responses: Record<string, unknown> }>
  >;
  const accessOf = (endpoint: (typeof API_ENDPOINTS)[number]) => ("access" in endpoint ? endpoint.access : "member");
  const admin = API_ENDPOINTS.filter((endpoint) => accessOf(endpoint) === "admin");
  expect(admin.length).toBeGreaterThan(0);
  for (const endpoint of API_ENDPOINTS) {
    const operation = paths[endpoint.path]![endpoint.method]!;
    const isAdmin = admin.some((candidate) => candidate.operationId === endpoint.operationId);
    expect(endpoint.path.startsWith("/api/admin/"), endpoint.operationId).toBe(isAdmin);
    const tag = { member: "member", admin: "admin", service: "events" }[accessOf(endpoint)];
    expect(operation.tags, endpoint.operationId).toEqual([tag]);
    if (isAdmin) expect(Object.keys(operation.responses), endpoint.operationId).toContain("403");
  }
});

test("the OpenAPI document validates as OpenAPI 3.1, with a webhook for every account event type and the logout", async () => {
  const document = buildOpenApiDocument("https://id.example.jp");
  const result = await new Validator().validate(document);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(Object.keys(document.webhooks).sort()).toEqual([...ACCOUNT_EVENT_TYPES, BACKCHANNEL_LOGOUT_WEBHOOK].sort());
  type Webhook = {
    post: {
      parameters?: { name: string }[];
      requestBody: { content: Record<string, { schema: { properties: Record<string, { const?: string }> } }> };
    };
  };
  for (const type of ACCOUNT_EVENT_TYPES) {
    const { post } = document.webhooks[type] as Webhook;
    const schema = post.requestBody.content["application/json"]!.schema;
    expect(Object.keys(schema.properties), type).toEqual(["id", "type", "timestamp", "sub", "sequence", "data"]);
    expect(schema.properties.type!.const, type).toBe(type);
    expect(post.parameters?.map((parameter) => parameter.name)).toEqual([
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ]);
  }
  const logout = (document.webhooks[BACKCHANNEL_LOGOUT_WEBHOOK] as Webhook).post.requestBody.content;
  expect(Object.keys(logout)).toEqual(["application/x-www-form-urlencoded"]);
});

test("the event feed takes a service's feed token, not a member's, and documents its 400 for a bad query and its 410 for an expired cursor", () => {
  const document = buildOpenApiDocument("https://id.example.jp");
  const feed = (
    document.paths["/api/events"] as Record<
      string,
      { security: unknown; parameters: { name?: string }[]; responses: Record<string, { description: string }> }
    >
  ).get!;
  expect(feed.security).toEqual([{ feedToken: [] }]);
  expect(feed.parameters.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(["after", "limit"]));
  expect(feed.responses["400"]!.description).toContain("invalid_feed_query");
  expect(feed.responses["410"]!.description).toContain("cursor_expired");
  expect(feed.responses["422"]).toBeUndefined();
});

test("query parameters are documented from the endpoint's query schema, in the document and on the reference page", () => {
  const paths = buildOpenApiDocument("https://id.example.jp").paths as Record<
    string,
    Record<string, { parameters: { name?: string; in?: string; schema?: { enum?: string[] } }[] }>
  >;
  const query = paths["/api/admin/users"]!.get!.parameters.filter((parameter) => parameter.in === "query");
  expect(query.map((parameter) => parameter.name)).toEqual(
    expect.arrayContaining(["q", "status", "sort", "after", "before", "limit"]),
  );
  expect(query.find((parameter) => parameter.name === "status")?.schema?.enum).toContain("disabled");

  const reference = getApiReference("https://id.example.jp");
  const list = reference.endpoints.find((endpoint) => endpoint.operationId === "adminListUsers");
  expect(list).toMatchObject({ admin: true, requestFields: null });
  expect(list?.queryFields?.map((field) => field.name)).toContain("status");
  const member = reference.endpoints.find((endpoint) => endpoint.operationId === "listUserDevices");
  expect(member).toMatchObject({ admin: false, queryFields: null });
});
