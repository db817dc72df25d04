import { AsyncLocalStorage } from "node:async_hooks";
import { type DestinationStream, type Logger, type LoggerOptions, pino, stdSerializers } from "pino";

/** What every log line written while handling a request carries, without each caller passing it on. */
interface RequestLogContext {
  requestId: string;
}

// The HTTP server (run by tsx) and the React Router build (bundled by Vite) load this file as two separate
// modules: the store lives on globalThis so a request entered in one is seen by the logger of the other.
const STORE_KEY = Symbol.for("member-account.request-log-context");
const registry = globalThis as unknown as Record<symbol, AsyncLocalStorage<RequestLogContext> | undefined>;
const requestLogContext = (registry[STORE_KEY] ??= new AsyncLocalStorage<RequestLogContext>());

/**
 * Runs `work` (and everything it awaits) with every log line carrying this request id, so one request's lines can be
 * found together.
 */
export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return requestLogContext.run({ requestId }, work);
}

/**
 * Properties of database errors that hold the values a statement was given (e-mails, token hashes, device keys)
 * or quote them: drizzle's DrizzleQueryError `params`, PGlite's `params`/`queryOptions`, postgres.js's
 * `parameters`/`args` (enumerable only with its debug option), and PostgreSQL's `detail` ("Key (email)=(…)").
 */
const DATABASE_VALUE_KEYS = new Set(["params", "parameters", "args", "queryOptions", "detail"]);
/** DrizzleQueryError's message ends with the parameters: "Failed query: <sql>\nparams: <values>". */
const PARAMS_IN_MESSAGE = /\nparams: [\s\S]*$/;
const REDACTED = "[redacted]";
/**
 * PostgreSQL's data exceptions (SQLSTATE class 22) quote the value they refused: 'invalid input syntax for type
 * uuid: "<value>"'. Other classes quote names (constraints, relations), which stay.
 */
const QUOTED_VALUE = /"[\s\S]*"/;
const isDataException = (error: Error) => /^22[0-9A-Z]{3}$/.test(String((error as { code?: unknown }).code));

/**
 * A copy of an error, and of its causes, without the values a failed query carried: the SQL text (placeholders
 * only) and PostgreSQL's code and constraint stay, which is what finding the fault needs.
 */
export function withoutQueryValues(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error) || depth > 8) return error;
  let message = error.message.replace(PARAMS_IN_MESSAGE, "");
  if (isDataException(error)) message = message.replace(QUOTED_VALUE, `"${REDACTED}"`);
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Record<string, unknown>;
  for (const key in error) {
    const value = (error as unknown as Record<string, unknown>)[key];
    copy[key] = DATABASE_VALUE_KEYS.has(key) && value !== undefined ? REDACTED : value;
  }
  Object.defineProperty(copy, "message", { value: message, enumerable: false, writable: true });
  Object.defineProperty(copy, "stack", {
    // Rebuilt from the frames alone: a stack starts with the message, and its values with it.
    value:
      error.stack &&
      [`${error.name}: ${message}`, ...error.stack.split("\n").filter((line) => /^\s+at /.test(line))].join("\n"),
    enumerable: false,
    writable: true,
  });
  if (error.cause !== undefined) copy.cause = withoutQueryValues(error.cause, depth + 1);
  if (Array.isArray(copy.errors))
    copy.errors = copy.errors.map((inner: unknown) => withoutQueryValues(inner, depth + 1));
  return copy;
}

const LOGGER_OPTIONS: LoggerOptions = {
  level: process.env.LOG_LEVEL ?? "info",
  base: undefined,
  // A requestId given in the call itself wins over the store's (pino's default merge).
  mixin: () => {
    const context = requestLogContext.getStore();
    return context ? { requestId: context.requestId } : {};
  },
  serializers: { err: (error: unknown) => stdSerializers.err(withoutQueryValues(error) as Error) },
  redact: {
    paths: [
      "password",
      "*.password",
      "code",
      "*.code",
      "token",
      "*.token",
      "refreshToken",
      "*.refreshToken",
      "cookie",
      "*.cookie",
      "authorization",
      "*.authorization",
    ],
    censor: "[redacted]",
  },
};

/**
 * Structured JSON logs (pino). Anything that could carry a secret is redacted at the source as well as here: request
 * logs never include query strings, bodies or cookies, and errors lose their query values. Lines written inside a
 * request carry its id (runWithRequestId), warnings and errors from domain code included.
 */
export function createLogger(destination?: DestinationStream): Logger {
  return pino(LOGGER_OPTIONS, destination);
}

/** The process's logger, on stdout. */
export const logger = createLogger();
