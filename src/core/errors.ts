/**
 * Errors the API returns are values: an `ApiError` knows its status, message and machine-readable data,
 * and renders itself as the envelope. Anything else thrown by a handler is a bug; the engine keeps those
 * apart and answers a redacted 500.
 */
import type { NamedErrorCode } from "../contract/error-codes.gen.ts";
import type { Plan } from "./world/state.ts";

export interface Envelope {
  statusCode: number;
  statusMessage: string;
  message: string;
  url: string;
  error: true;
  data?: Record<string, unknown>;
}

/** Default status messages, used where the description names none. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Request body too large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too many requests. Please try again later.",
  499: "Client Closed Request",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/**
 * The simulator's own codes, for what the contract leaves to it: a `Prefer` it cannot honour (its control
 * of answers, as Prism's), and an ACP create sent again with its key and another purchase.
 */
export type SimulatorErrorCode =
  | "PREFER_INVALID"
  | "PREFER_UNDOCUMENTED_STATUS"
  | "PREFER_UNKNOWN_EXAMPLE"
  | "IDEMPOTENCY_CONFLICT";

/** A `data.code`: one the contract names (src/contract/error-codes.gen.ts), or the simulator's own. */
export type ErrorCode = NamedErrorCode | SimulatorErrorCode;

/** An envelope's machine-readable detail: its code, and whatever else the answer says. */
export type ErrorData = { code?: ErrorCode } & Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly data: ErrorData | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, message?: string, data?: ErrorData, headers: Record<string, string> = {}) {
    // A refusal is an answer, not a fault: nobody reads where it was made, and capturing the stack was a
    // third of the CPU of a simulator answering a flood of 429s (a client over its rate limit).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? STATUS_TEXT[status] ?? "Error");
    Error.stackTraceLimit = limit;
    this.name = "ApiError";
    this.status = status;
    this.data = data;
    this.headers = headers;
  }

  toEnvelope(url: string): Envelope {
    const env: Envelope = {
      statusCode: this.status,
      statusMessage: this.message,
      message: this.message,
      url,
      error: true,
    };
    if (this.data !== undefined) env.data = this.data;
    return env;
  }
}

export const badRequest = (message: string, data?: ErrorData): ApiError => new ApiError(400, message, data);
export const unauthorized = (): ApiError => new ApiError(401, "Unauthorized");
export const forbidden = (message = "Forbidden", data?: ErrorData): ApiError =>
  new ApiError(403, message, data);
export const notFound = (message: string): ApiError => new ApiError(404, message);
export const conflict = (message: string, data?: ErrorData): ApiError => new ApiError(409, message, data);
export const withCode = (status: number, message: string, code: ErrorCode): ApiError =>
  new ApiError(status, message, { code });

export type LimitType = "sparks" | "flows" | "messages" | "groupMembers";

const PLAN_LIMIT_MESSAGE: Readonly<Record<Plan, string>> = {
  free: "Free plan limit reached",
  premium: "Individual plan limit reached",
  team: "Team plan limit reached",
};

/** 403 PlanLimitError: `limit` and `current` are the caller's allowance and usage at request time. */
export function planLimit(limitType: LimitType, currentPlan: Plan, limit: number, current: number): ApiError {
  return new ApiError(403, PLAN_LIMIT_MESSAGE[currentPlan], {
    code: "PLAN_LIMIT",
    limitType,
    currentPlan,
    limit,
    current,
  });
}

/** 405, naming in Allow the methods the path does serve (RFC 9110 requires it). */
export function methodNotAllowed(allowed: readonly string[]): ApiError {
  return new ApiError(405, "Method Not Allowed", undefined, { allow: allowed.join(", ") });
}
