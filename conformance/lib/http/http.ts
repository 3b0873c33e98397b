/**
 * The kit's HTTP client (undici). Every exchange is recorded and handed to the observers (contract
 * validation, coverage); API keys are redacted in what is recorded. It paces itself by
 * `RateLimit-Remaining` (waits for the window once it reaches 0; a quick run against a deployment waits for
 * none and ends the check there, WindowSpent) and `Retry-After`, and retries only 429
 * and 5xx, with exponential backoff and a bounded number of attempts; once two requests met a 5xx on every
 * attempt, a check's client stops retrying 5xx (the target answers so, it is not a blip). A retried 5xx is
 * still observed, so it is still reported.
 */
import { Agent, request } from "undici";
import { operationsById } from "../description/contract.ts";
import { Exchange, type OperationRef } from "./exchange.ts";

export { Exchange, type OperationRef } from "./exchange.ts";

export interface Credentials {
  key: string;
  /** The role the key belongs to (`owner`), used to redact it and to name it in curl commands. */
  label: string;
}

export interface CallSpec {
  /** The operation to call; its path template is filled from `params`. */
  op?: string;
  /** Or a method and a path (from the origin, prefix included) for requests outside an operation. */
  method?: string;
  path?: string;
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined> | string;
  /** Whose key to send; null sends no Authorization header. */
  as?: Credentials | null;
  /** A raw Authorization header (malformed-key checks); wins over `as`. */
  authorization?: string;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Uint8Array;
  /** Overrides the server prefix (e.g. `/v1` instead of `/api/v1`). */
  prefix?: string;
  /** Retry 429 and 5xx (default true). */
  retry?: boolean;
  /** Wait for the rate-limit window when RateLimit-Remaining reached 0 (default true). */
  pace?: boolean;
  timeoutMs?: number;
}

export interface ClientOptions {
  baseUrl: string;
  /** Server prefix per contract prefix: `/api/v1` → the target's v1 prefix, and so on. */
  prefixFor: (contractPrefixes: readonly string[]) => string;
  /** Waits for `ms` of the rate-limit clock: real sleep against a deployment, a clock move on the simulator. */
  waitWindow: (ms: number) => Promise<void>;
  /** Backoff between retries of a 5xx (short against the simulator). */
  backoffBaseMs: number;
  maxAttempts: number;
  /** Send through this fetch (e.g. global fetch under msw/node) instead of undici's own agent. */
  fetch?: typeof globalThis.fetch;
  /** The run's memory of rate-limit windows (default: the client's own). */
  pace?: PaceMemory;
  /** The run's memory of a target gone silent, shared by its checks (one Silence a run). */
  silence?: Silence;
  /** When the run's time budget ends (epoch ms): no request starts after it, none outlasts it. */
  deadline?: number | null;
  /** Wait for a spent rate-limit window to open again (false in a quick run: WindowSpent instead). */
  waitForWindows?: boolean;
  /** Without waiting for windows: requests of each account's window kept for undoing what was made. */
  keepForUndo?: number;
}

type Observer = (ex: Exchange) => void;

/**
 * The target stopped answering: a request failed below HTTP (refused, reset, timed out) and a plain GET
 * of its origin got no answer either. The run stops at the first one (lib/running/runner.ts): every later check
 * would wait out its timeouts for the same news.
 */
export class TargetDownError extends Error {
  override readonly name = "TargetDownError";
  readonly code = "TARGET_DOWN";
}

/**
 * A quick run's window for an account is spent: a quick run waits for no window to open again (that is
 * what --deep does), so the check ends here, judged in part, and says so.
 */
export class WindowSpent extends Error {
  override readonly name = "WindowSpent";
  readonly code = "WINDOW_SPENT";
}

/**
 * The run's time budget is spent: whatever the check was doing (a request, a wait for a window, a poll) it
 * stops here, and the run ends with what it checked (lib/running/runner.ts).
 */
export class BudgetSpent extends Error {
  override readonly name = "BudgetSpent";
  readonly code = "BUDGET_SPENT";
}

export interface Pace {
  remaining: number;
  windowStart: number;
}

/** How long a request may go unanswered before the kit asks whether the target answers anything at all. */
const WATCH_MS = 5_000;
/** How long a request to a target already found silent waits for its answer. */
const SILENT_MS = 2_000;

const agent = new Agent({ keepAliveTimeout: 10_000, connections: 16, pipelining: 1 });

/**
 * The account a key label names: keys a check makes are labelled after their account (`owner_new`,
 * `solo_second`), and the rate limit is the account's.
 */
export function accountOf(label: string): string {
  return label.split("_")[0] as string;
}

/**
 * What the run knows of each account's rate-limit window, shared by every check's client: a check that starts
 * on a key the previous one used up waits for the window instead of meeting 429s.
 */
export type PaceMemory = Map<string, Pace>;

/**
 * When the target was last found silent (a TargetDownError), or null: until it answers again, every
 * request (the cleanups of the checks under way, say) gets a short timeout and no second probe, so a run
 * against a target that stopped ends in seconds.
 */
export interface Silence {
  since: number | null;
}

export class HttpClient {
  private readonly observers: Observer[] = [];
  private readonly pace: PaceMemory;
  /** Requests whose every attempt answered 5xx: past two, a 5xx is taken as it is. */
  private steady5xx = 0;
  /** Requests sent (retries included) per key label (`owner`, …; `none` without credentials). */
  readonly sent = new Map<string, number>();
  readonly options: ClientOptions;
  constructor(options: ClientOptions) {
    this.options = options;
    this.pace = options.pace ?? new Map();
  }

  observe(fn: Observer): () => void {
    this.observers.push(fn);
    return () => this.observers.splice(this.observers.indexOf(fn), 1);
  }

  /** The URL a spec resolves to (also used to build curl commands for requests that were never sent). */
  urlFor(spec: CallSpec): { url: string; method: string; operation: OperationRef | null } {
    const op = spec.op ? operationsById().get(spec.op) : undefined;
    if (spec.op && !op) throw new Error(`Unknown operation ${spec.op}`);
    const method = spec.method ?? op?.method ?? "GET";
    let path: string;
    if (op) {
      const prefix = spec.prefix ?? this.options.prefixFor(op.prefixes);
      path =
        prefix +
        op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
          const v = spec.params?.[name];
          if (v === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
          return encodeURIComponent(v);
        });
    } else path = spec.path ?? "/";
    const qs =
      typeof spec.query === "string"
        ? spec.query
        : new URLSearchParams(
            Object.entries(spec.query ?? {})
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, String(v)]),
          ).toString();
    const url = `${this.options.baseUrl}${path}${qs ? `?${qs}` : ""}`;
    const operation = op ? { operationId: op.operationId, method: op.method, path: op.path } : null;
    return { url, method, operation };
  }

  async call(spec: CallSpec): Promise<Exchange> {
    const retry = spec.retry ?? true;
    const attempts: Exchange[] = [];
    for (let attempt = 1; ; attempt++) {
      const deadline = this.options.deadline;
      if (deadline != null && Date.now() >= deadline) throw new BudgetSpent("the run's time budget is spent");
      if (spec.pace !== false) await this.paceBefore(spec);
      const ex = await this.sendOrDown(spec);
      this.paceAfter(spec, ex);
      for (const o of [...this.observers]) o(ex);
      const last = attempt >= this.options.maxAttempts || !retry;
      if (!last && ex.status === 429) {
        if (this.options.waitForWindows === false)
          throw new WindowSpent(`the window of ${spec.as?.label ?? "the caller"} is spent (429)`);
        const seconds = Number(ex.header("retry-after") ?? "1");
        await this.options.waitWindow(Math.min(Number.isFinite(seconds) ? seconds : 1, 60) * 1000 + 100);
        attempts.push(ex);
        continue;
      }
      // A 5xx that no retry cured is the target's answer, not a blip: later ones are not retried.
      if (!last && ex.status >= 500 && this.steady5xx < 2) {
        await sleep(this.options.backoffBaseMs * 2 ** (attempt - 1));
        attempts.push(ex);
        continue;
      }
      if (ex.status >= 500 && attempts.length > 0 && attempts.every((a) => a.status >= 500)) this.steady5xx++;
      ex.attempts = attempts;
      return ex;
    }
  }

  /**
   * A request that failed below HTTP is the check's problem (a body the server stopped reading, say) unless
   * the target answers nothing at all any more: then it is a TargetDownError.
   */
  private async sendOrDown(spec: CallSpec): Promise<Exchange> {
    const silence = this.options.silence;
    if (silence?.since != null) return this.sendToSilent(spec, silence);
    const watch = this.watch(spec);
    try {
      return await Promise.race([this.send(spec), watch.down]);
    } catch (error) {
      if (!(error instanceof TargetDownError) && (await this.answers())) throw error;
      if (silence) silence.since = Date.now();
      if (error instanceof TargetDownError) throw error;
      const { method, url } = this.urlFor(spec);
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new TargetDownError(
        `the target stopped answering: ${method} ${url} failed (${cause}), and so did GET ${this.options.baseUrl}/`,
      );
    } finally {
      watch.stop();
    }
  }

  /** A request to a target found silent: a short wait, and no answer is more of the same news. */
  private async sendToSilent(spec: CallSpec, silence: Silence): Promise<Exchange> {
    try {
      const ex = await this.send({ ...spec, timeoutMs: Math.min(spec.timeoutMs ?? SILENT_MS, SILENT_MS) });
      silence.since = null;
      return ex;
    } catch (error) {
      const { method, url } = this.urlFor(spec);
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new TargetDownError(
        `the target stopped answering: ${method} ${url} failed (${cause}), as others had since ${new Date(silence.since ?? Date.now()).toISOString()}`,
      );
    }
  }

  /**
   * A request unanswered after WATCH_MS has the target asked, beside it, whether it answers anything: a
   * target that has stopped is told in seconds, not after the request's own timeout (a slow answer to a
   * target that still answers waits on, up to that timeout).
   */
  private watch(spec: CallSpec): { down: Promise<never>; stop(): void } {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const down = new Promise<never>((_, reject) => {
      timer = setTimeout(async () => {
        if (stopped || (await this.answers()) || stopped) return;
        const { method, url } = this.urlFor(spec);
        reject(
          new TargetDownError(
            `the target stopped answering: ${method} ${url} had no answer after ${WATCH_MS / 1000} s, and GET ${this.options.baseUrl}/ none within 5 s`,
          ),
        );
      }, WATCH_MS);
    });
    // Nobody may be listening when it rejects after the race is over.
    down.catch(() => {});
    return {
      down,
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** Whether the target answers anything, any status, within five seconds. */
  private async answers(): Promise<boolean> {
    try {
      const signal = AbortSignal.timeout(5_000);
      if (this.options.fetch)
        await (await this.options.fetch(`${this.options.baseUrl}/`, { signal })).arrayBuffer();
      else await (await request(`${this.options.baseUrl}/`, { dispatcher: agent, signal })).body.dump();
      return true;
    } catch {
      return false;
    }
  }

  /** The budget is the account's: every key of it (`owner`, `owner_new`) paces as one. */
  private paceKey(spec: CallSpec): string | null {
    return spec.as ? accountOf(spec.as.label) : null;
  }

  /** What is left of `label`'s account in its current window, as far as the run has seen; null if unknown. */
  remaining(label: string): number | null {
    const p = this.pace.get(accountOf(label));
    if (!p) return null;
    return Date.now() - p.windowStart >= 61_000 ? null : p.remaining;
  }

  private async paceBefore(spec: CallSpec): Promise<void> {
    const key = this.paceKey(spec);
    const p = key ? this.pace.get(key) : undefined;
    const waits = this.options.waitForWindows !== false;
    if (!p || p.remaining > (waits ? 0 : (this.options.keepForUndo ?? 0))) return;
    if (!waits) throw new WindowSpent(`the ${key} account's window is spent`);
    // The window of this account is used up: wait for it to roll over rather than be refused.
    const waitMs = Math.max(0, p.windowStart + 61_000 - Date.now());
    await this.options.waitWindow(Math.min(waitMs || 61_000, 61_000));
    this.pace.delete(key as string);
  }

  private paceAfter(spec: CallSpec, ex: Exchange): void {
    const key = this.paceKey(spec);
    const remaining = Number(ex.header("ratelimit-remaining"));
    const limit = Number(ex.header("ratelimit-limit"));
    if (!key || ex.header("ratelimit-remaining") === null || !Number.isFinite(remaining)) return;
    const prev = this.pace.get(key);
    const windowStart = !prev || remaining >= limit - 1 ? Date.now() : prev.windowStart;
    this.pace.set(key, { remaining, windowStart });
  }

  private async send(spec: CallSpec): Promise<Exchange> {
    const label = spec.as?.label ?? "none";
    this.sent.set(label, (this.sent.get(label) ?? 0) + 1);
    const { url, method, operation } = this.urlFor(spec);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
    let keyLabel: string | null = null;
    const auth = spec.authorization ?? (spec.as ? `Bearer ${spec.as.key}` : undefined);
    if (auth !== undefined) headers.authorization = auth;
    if (spec.as && spec.authorization === undefined) keyLabel = spec.as.label;
    let body: string | Uint8Array | undefined = spec.body;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] ??= "application/json";
    }
    const started = performance.now();
    // No request outlasts the run's time budget (at least a second, so that it is sent at all).
    const left =
      this.options.deadline != null ? Math.max(1_000, this.options.deadline - Date.now()) : Infinity;
    const timeoutMs = Math.min(spec.timeoutMs ?? 30_000, left);
    let status: number;
    let text: string;
    const responseHeaders: Record<string, string> = {};
    if (this.options.fetch) {
      const res = await this.options.fetch(url, {
        method,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body !== undefined ? { body: typeof body === "string" ? body : new Uint8Array(body) } : {}),
      });
      status = res.status;
      text = await res.text();
      res.headers.forEach((v, k) => {
        responseHeaders[k.toLowerCase()] = v;
      });
    } else {
      const res = await request(url, {
        method: method as "GET",
        headers,
        dispatcher: agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(body !== undefined ? { body } : {}),
      });
      status = res.statusCode;
      text = await res.body.text();
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) responseHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
      }
    }
    const ms = performance.now() - started;
    const recorded = { ...headers };
    if (recorded.authorization !== undefined) {
      recorded.authorization = keyLabel ? `Bearer <${keyLabel} key>` : redactAuth(recorded.authorization);
    }
    const bodyText =
      body === undefined ? null : typeof body === "string" ? body : Buffer.from(body).toString();
    return new Exchange(
      method,
      url,
      operation,
      recorded,
      keyLabel,
      bodyText,
      status,
      responseHeaders,
      text,
      ms,
    );
  }
}

/** A raw Authorization value from a malformed-key check: keep its shape, hide anything key-like. */
function redactAuth(value: string): string {
  return value.replace(/service_[A-Za-z0-9_-]{6,}/g, "service_<redacted>");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
