/**
 * The harness's switches for tests: a fault that slows, throttles or fails requests, and a counter of the requests
 * the stand-in received. Both are driven over HTTP through the control endpoint (see HARNESS_PATH), so tests in
 * another process (the app server, Playwright) can flip them.
 */
import { CognitoFault } from "./errors";

export const HARNESS_PATH = "/__harness";

/** Pseudo-operation names for the stand-in's GET endpoints, usable in `operations` and seen in the counter. */
export const JWKS_OPERATION = "Jwks";
export const OPENID_CONFIGURATION_OPERATION = "OpenIdConfiguration";

export type FaultMode = "none" | "slow" | "slowAnswer" | "throttle" | "fail" | "error";
export type ThrottleError = "TooManyRequestsException" | "LimitExceededException";

export interface FaultSettings {
  /**
   * none: answer normally. slow: wait `delayMs` before handling the request. slowAnswer: handle the request, then
   * wait `delayMs` before answering: the change is made even when the client gives up waiting, as when Cognito's
   * answer is lost on its way back. throttle: answer like Cognito's
   * throttling (HTTP 400, `error` TooManyRequestsException or LimitExceededException). fail: HTTP 500
   * InternalErrorException. error: answer with any Cognito error (`error`, `status`, `message`).
   */
  mode: FaultMode;
  /** For slow and slowAnswer: how long to wait (default 10 000 ms). */
  delayMs?: number;
  /** Limit the fault to these operations (e.g. "AdminInitiateAuth", or "Jwks"); default: every API operation. */
  operations?: string[];
  /** Fault only the next `times` matching requests, then behave normally again; default: until changed. */
  times?: number;
  /** For throttle: TooManyRequestsException (default) or LimitExceededException. For error: the error name. */
  error?: string;
  /** For error: the HTTP status (default 400). */
  status?: number;
  /** For throttle, fail and error: the message (defaults are Cognito's). */
  message?: string;
}

export interface FaultState extends FaultSettings {
  /** Matching requests faulted so far since the fault was set. */
  applied: number;
  /** Of those, slowed requests dropped because their client gave up (or died) during the delay. */
  dropped: number;
}

export interface RequestCounts {
  /** Every request since the last reset, control requests excepted. */
  total: number;
  /** Per operation: the X-Amz-Target operation for API calls, "Jwks" / "OpenIdConfiguration" for those GETs. */
  byOperation: Record<string, number>;
}

/** One received request, for tests that check a pace (requests per second) rather than a count. */
export interface LoggedRequest {
  operation: string;
  /** Epoch milliseconds when the harness received it. */
  at: number;
}

/** The request log keeps the newest this many, so a long-running dev stand-in does not grow without bound. */
const MAX_LOGGED_REQUESTS = 50_000;

const DEFAULT_DELAY_MS = 10_000;
const MESSAGES: Record<string, string> = {
  TooManyRequestsException: "Rate exceeded",
  LimitExceededException: "Attempt limit exceeded, please try after some time.",
  InternalErrorException: "An internal error occurred.",
};

export class HarnessSwitches {
  private fault: FaultState = { mode: "none", applied: 0, dropped: 0 };
  private counts: RequestCounts = { total: 0, byOperation: {} };
  private log: LoggedRequest[] = [];
  private readonly takenFrom = new WeakMap<FaultState, FaultState>();

  count(operation: string): void {
    this.counts.total += 1;
    this.counts.byOperation[operation] = (this.counts.byOperation[operation] ?? 0) + 1;
    this.log.push({ operation, at: Date.now() });
    if (this.log.length > MAX_LOGGED_REQUESTS) this.log.splice(0, this.log.length - MAX_LOGGED_REQUESTS);
  }

  requestLog(): LoggedRequest[] {
    return [...this.log];
  }

  requestCounts(): RequestCounts {
    return { total: this.counts.total, byOperation: { ...this.counts.byOperation } };
  }

  resetCounts(): void {
    this.counts = { total: 0, byOperation: {} };
    this.log = [];
  }

  currentFault(): FaultState {
    return { ...this.fault };
  }

  setFault(settings: unknown): FaultState {
    this.fault = { ...parseFaultSettings(settings), applied: 0, dropped: 0 };
    return this.currentFault();
  }

  reset(): void {
    this.fault = { mode: "none", applied: 0, dropped: 0 };
    this.resetCounts();
  }

  /** A slowed request was dropped (its client went away during the delay): counted on the fault that slowed it. */
  noteDropped(taken: FaultState): void {
    const fault = this.takenFrom.get(taken);
    if (fault) fault.dropped += 1;
  }

  /**
   * The fault to apply to this request, if any (consuming one of `times`). API operations are faulted unless
   * `operations` says otherwise; the JWKS and OpenID GETs only when `operations` names them.
   */
  take(operation: string, isApiOperation: boolean): FaultState | null {
    const current = this.fault;
    if (current.mode === "none") return null;
    const applies = current.operations?.length ? current.operations.includes(operation) : isApiOperation;
    if (!applies) return null;
    if (current.times !== undefined && current.applied >= current.times) return null;
    current.applied += 1;
    const taken = { ...current };
    // Counted on the fault it was taken from: a fault set since starts its counts afresh.
    this.takenFrom.set(taken, current);
    return taken;
  }
}

/** The error a throttle, fail or error fault answers with. */
export function faultError(state: FaultState): CognitoFault | null {
  switch (state.mode) {
    case "throttle": {
      const type = state.error ?? "TooManyRequestsException";
      return new CognitoFault(type, state.message ?? MESSAGES[type] ?? "Rate exceeded", 400);
    }
    case "fail":
      return new CognitoFault("InternalErrorException", state.message ?? MESSAGES.InternalErrorException!, 500);
    case "error": {
      const type = state.error ?? "InternalErrorException";
      return new CognitoFault(type, state.message ?? MESSAGES[type] ?? type, state.status ?? 400);
    }
    default:
      return null;
  }
}

/** How long a slow fault waits before handling the request. */
export function faultDelay(state: FaultState): number {
  return state.mode === "slow" ? (state.delayMs ?? DEFAULT_DELAY_MS) : 0;
}

/** How long a slowAnswer fault waits between handling the request and answering it. */
export function answerDelay(state: FaultState): number {
  return state.mode === "slowAnswer" ? (state.delayMs ?? DEFAULT_DELAY_MS) : 0;
}

/** A control request whose settings are not understood (answered with HTTP 400). */
export class InvalidFaultSettings extends Error {}

const MODES: FaultMode[] = ["none", "slow", "slowAnswer", "throttle", "fail", "error"];

function parseFaultSettings(input: unknown): FaultSettings {
  if (!input || typeof input !== "object") throw new InvalidFaultSettings("Expected a JSON object");
  const value = input as Record<string, unknown>;
  const mode = value.mode;
  if (typeof mode !== "string" || !MODES.includes(mode as FaultMode)) {
    throw new InvalidFaultSettings(`mode must be one of ${MODES.join(", ")}`);
  }
  const settings: FaultSettings = { mode: mode as FaultMode };
  const number = (key: "delayMs" | "times" | "status", min: number) => {
    const raw = value[key];
    if (raw === undefined) return;
    if (typeof raw !== "number" || !Number.isInteger(raw) || raw < min) {
      throw new InvalidFaultSettings(`${key} must be an integer ≥ ${min}`);
    }
    settings[key] = raw;
  };
  number("delayMs", 0);
  number("times", 0);
  number("status", 400);
  if (value.operations !== undefined) {
    if (!Array.isArray(value.operations) || !value.operations.every((item) => typeof item === "string")) {
      throw new InvalidFaultSettings("operations must be a list of operation names");
    }
    settings.operations = value.operations as string[];
  }
  for (const key of ["error", "message"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== "string") throw new InvalidFaultSettings(`${key} must be a string`);
    settings[key] = value[key] as string;
  }
  if (
    mode === "throttle" &&
    settings.error &&
    !["TooManyRequestsException", "LimitExceededException"].includes(settings.error)
  ) {
    throw new InvalidFaultSettings("error must be TooManyRequestsException or LimitExceededException for throttle");
  }
  return settings;
}
