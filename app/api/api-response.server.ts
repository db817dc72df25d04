import { isDatabaseUnavailable } from "~db/client.server";
import type { Translate } from "~/i18n/translator.server";
import { toDomainError } from "~/domain/domain-error.server";
import { httpStatusOf } from "~/errors/error-responses.server";
import { logger } from "~/integrations/logger.server";
import { API_ERROR_STATUS, type ApiErrorCode } from "./endpoint";

/** A refusal the API answers with its envelope; route modules and the handler throw these. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    readonly options: {
      /** validation_failed: message keys of the "forms" namespace per field. */
      fields?: Record<string, string[]>;
      devices?: unknown;
      /** validation_failed of a CSV import: every problem by row and column, already translated. */
      problems?: unknown;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(code);
    this.name = "ApiError";
    this.status = API_ERROR_STATUS[code];
  }
}

/** Every API response: JSON, never stored by any cache (it is one member's data or a verdict on a token). */
export function apiJson(body: unknown, init: { status?: number; headers?: Record<string, string>; locale: string }) {
  const json = JSON.stringify(body);
  return new Response(json, {
    status: init.status ?? 200,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      // A known length lets the HTTP layer's compression skip small answers (gzip of 200 bytes only costs CPU).
      "Content-Length": String(Buffer.byteLength(json)),
      "Cache-Control": "no-store",
      "Content-Language": init.locale,
      ...init.headers,
    },
  });
}

/** The error envelope, its message and field messages in the request's language. */
export function apiErrorResponse(
  error: ApiError,
  context: { translate: Translate; locale: string; requestId: string },
) {
  const { translate } = context;
  const fields = error.options.fields
    ? Object.fromEntries(
        Object.entries(error.options.fields).map(([name, keys]) => [
          name,
          keys.map((key) => translate(`forms:${key}`)),
        ]),
      )
    : undefined;
  return apiJson(
    {
      error: {
        code: error.code,
        message: translate(`api:errors.${error.code}`),
        requestId: context.requestId,
        ...(fields ? { fields } : {}),
        ...(error.options.devices ? { devices: error.options.devices } : {}),
        ...(error.options.problems ? { problems: error.options.problems } : {}),
      },
    },
    { status: error.status, locale: context.locale, headers: error.options.headers },
  );
}

/**
 * What a failure below the route means to a caller. Domain errors keep the pages' status rule
 * (app/errors/error-responses.server.ts); a busy or unreachable Cognito, mail server or database is 503 with Retry-After, so callers back
 * off and try again; anything else is a bug, logged with the request id, and a 500 that says nothing more.
 */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  const domainError = toDomainError(error);
  if (domainError) {
    switch (domainError.code) {
      case "emailUnavailable":
      case "usernameExists":
        return new ApiError("email_unavailable");
      case "sameAddress":
        return new ApiError("email_unchanged");
      case "mailUnavailable":
        return new ApiError("mail_unavailable", { headers: { "Retry-After": "60" } });
      case "memberNotFound":
        return new ApiError("not_found");
      case "targetIsStaff":
        return new ApiError("target_is_staff");
    }
    const status = httpStatusOf(domainError);
    if (status === 503) return new ApiError("service_unavailable", { headers: { "Retry-After": "30" } });
    if (status === 429) return new ApiError("rate_limited", { headers: { "Retry-After": "60" } });
    return new ApiError("identity_refused");
  }
  if (isDatabaseUnavailable(error)) {
    logger.error({ err: error, requestId }, "database unavailable during an API call");
    return new ApiError("service_unavailable", { headers: { "Retry-After": "10" } });
  }
  logger.error({ err: error, requestId }, "API call failed");
  return new ApiError("internal_error");
}
