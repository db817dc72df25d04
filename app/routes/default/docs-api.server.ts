import { API_ENDPOINTS, apiEndpoint, type ApiOperationId } from "~/api/contract";
import { API_ERROR_CODES, API_ERROR_STATUS, type ApiErrorCode, errorCodesOf } from "~/api/endpoint";
import { buildOpenApiDocument } from "~/api/openapi";

/**
 * The API reference page's data, read from the OpenAPI document that /api/openapi.json serves (itself generated
 * from the contract's schemas), so the page shows exactly what the document and the endpoints say.
 */

/** One top-level field of a JSON body, as the page shows it. */
export interface ApiFieldDoc {
  name: string;
  /** JSON Schema types, e.g. "string", "string | null", "array<string>", "string (uuid)". */
  type: string;
  required: boolean;
  /** Allowed values (enum or const), as JSON. */
  values: string[];
}

export interface ApiErrorDoc {
  code: ApiErrorCode;
  status: number;
}

export interface ApiEndpointDoc {
  operationId: ApiOperationId;
  method: string;
  path: string;
  /** Staff only (tagged "admin"): needs an admin's token. */
  admin: boolean;
  /** Null when the endpoint takes no query parameters. */
  queryFields: ApiFieldDoc[] | null;
  /** Null when the endpoint takes no body. */
  requestFields: ApiFieldDoc[] | null;
  successStatus: number;
  responseFields: ApiFieldDoc[];
  errors: ApiErrorDoc[];
}

export interface ApiReference {
  origin: string;
  endpoints: ApiEndpointDoc[];
  /** Every error code, by status. */
  errors: ApiErrorDoc[];
}

type JsonSchema = Record<string, unknown>;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function jsonTypeOfValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
}

/** A schema's JSON type in words; nested arrays and objects are shown by their type only. */
function describeType(schema: JsonSchema): string {
  const alternatives = asArray(schema.anyOf ?? schema.oneOf).filter(isObject);
  if (alternatives.length > 0) return [...new Set(alternatives.map(describeType))].join(" | ");
  if ("const" in schema) return jsonTypeOfValue(schema.const);
  if (Array.isArray(schema.type)) return schema.type.map(String).join(" | ");
  if (schema.type === "array") return isObject(schema.items) ? `array<${describeType(schema.items)}>` : "array";
  if (typeof schema.type === "string") {
    return typeof schema.format === "string" ? `${schema.type} (${schema.format})` : schema.type;
  }
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonTypeOfValue))].join(" | ");
  return "any";
}

/** Enum and const values of a schema, of its alternatives and of its array items. */
function allowedValues(schema: JsonSchema): unknown[] {
  return [
    ...asArray(schema.enum),
    ...("const" in schema ? [schema.const] : []),
    ...(isObject(schema.items) ? allowedValues(schema.items) : []),
    ...asArray(schema.anyOf ?? schema.oneOf)
      .filter(isObject)
      .flatMap(allowedValues),
  ];
}

function fieldDoc(name: string, schema: unknown, required: boolean): ApiFieldDoc {
  const field = isObject(schema) ? schema : {};
  return {
    name,
    type: describeType(field),
    required,
    values: [...new Set(allowedValues(field).map((value) => JSON.stringify(value)))],
  };
}

/** The top-level properties of an object schema. */
function fieldsOf(schema: unknown): ApiFieldDoc[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(asArray(schema.required));
  return Object.entries(schema.properties).map(([name, property]) => fieldDoc(name, property, required.has(name)));
}

/** The operation's query parameters, as fields; null when it has none. */
function queryFieldsOf(operation: JsonSchema): ApiFieldDoc[] | null {
  const query = asArray(operation.parameters).filter(
    (parameter): parameter is JsonSchema => isObject(parameter) && parameter.in === "query",
  );
  if (query.length === 0) return null;
  return query.map((parameter) => fieldDoc(String(parameter.name), parameter.schema, parameter.required === true));
}

function jsonSchemaOfContent(holder: unknown): unknown {
  if (!isObject(holder) || !isObject(holder.content)) return undefined;
  const json = holder.content["application/json"];
  return isObject(json) ? json.schema : undefined;
}

function byStatus(a: ApiErrorDoc, b: ApiErrorDoc): number {
  return a.status - b.status || API_ERROR_CODES.indexOf(a.code) - API_ERROR_CODES.indexOf(b.code);
}

function errorDoc(code: ApiErrorCode): ApiErrorDoc {
  return { code, status: API_ERROR_STATUS[code] };
}

function errorsOf(operationId: ApiOperationId): ApiErrorDoc[] {
  const endpoint = API_ENDPOINTS.find((candidate) => candidate.operationId === operationId);
  return endpoint ? [...new Set(errorCodesOf(endpoint))].map(errorDoc).sort(byStatus) : [];
}

function isOperationId(value: unknown): value is ApiOperationId {
  return API_ENDPOINTS.some((endpoint) => endpoint.operationId === value);
}

// The document depends only on the origin and the code, so one build per process is enough.
const referenceByOrigin = new Map<string, ApiReference>();

export function getApiReference(origin: string): ApiReference {
  let reference = referenceByOrigin.get(origin);
  if (!reference) {
    reference = buildApiReference(origin);
    referenceByOrigin.set(origin, reference);
  }
  return reference;
}

function buildApiReference(origin: string): ApiReference {
  const document = buildOpenApiDocument(origin);
  const endpoints: ApiEndpointDoc[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!isObject(operation) || !isOperationId(operation.operationId) || !isObject(operation.responses)) continue;
      // The contract's usual success (201), not the first 2xx listed: a repeated call's 200 may come first.
      const successStatus = apiEndpoint(operation.operationId).success.status;
      const requestSchema = jsonSchemaOfContent(operation.requestBody);
      endpoints.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        admin: asArray(operation.tags).includes("admin"),
        queryFields: queryFieldsOf(operation),
        requestFields: requestSchema === undefined ? null : fieldsOf(requestSchema),
        successStatus,
        responseFields: fieldsOf(jsonSchemaOfContent(operation.responses[String(successStatus)])),
        errors: errorsOf(operation.operationId),
      });
    }
  }
  return {
    origin: document.servers[0]?.url ?? origin,
    endpoints,
    errors: API_ERROR_CODES.map(errorDoc).sort(byStatus),
  };
}
