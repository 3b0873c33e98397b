/**
 * What the validating proxy makes of each exchange it forwards, with the kit's own code: the request's
 * rules (lib/http/requests.ts), the response's (lib/description/contract.ts, the same every exchange of a kit run is held
 * to) and the rules a key's sequence shows (sequences.ts). It keeps the run's account for the reports:
 * operations used, statuses met, violations by rule, and how the client behaved. Bodies are kept only as
 * the violations' excerpts, with keys redacted.
 */

import { streamProblems } from "../lib/description/answers.ts";
import {
  envelopeProblems,
  type Operation,
  operationsById,
  responseViolations,
  validate,
} from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import { Exchange } from "../lib/http/http.ts";
import { isJsonMediaType, type Match, matchOperation, requestViolations } from "../lib/http/requests.ts";
import { type Violation, violation } from "../lib/reporting/report.ts";
import { ruleText } from "../lib/running/context.ts";
import { answerProblems } from "./answers.ts";
import type { Recorder } from "./record.ts";
import { hash, type IntegrationTally, type Party, Sequences } from "./sequences.ts";

/** One exchange as the proxy saw it. */
export interface Observed {
  method: string;
  /** The path the client asked for (the URL's pathname), when the host has it at hand. */
  path?: string;
  /** The URL the client asked for, on the proxy's origin. */
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  status: number;
  responseHeaders: Record<string, string>;
  /** The response body as read (null when it was too large to judge). */
  responseBody: string | null;
  ms: number;
  at: number;
}

export interface Finding extends Violation {
  /** `request` and `client`: the client's doing; `response` and `server`: the upstream's. */
  who: "request" | "response" | "client" | "server";
  /** Whose mistake it is: the client's (its request, its sequence) or the upstream's (its answers). */
  side: Side;
  at: string;
}

export type Side = "client" | "upstream";

/** Which side a finding's `who` is on. */
export function sideOf(who: Finding["who"]): Side {
  return who === "request" || who === "client" ? "client" : "upstream";
}

export interface ProxyReport {
  upstream: string;
  startedAt: string;
  exchanges: number;
  operations: Record<string, { calls: number; statuses: Record<string, number> }>;
  /** Requests to paths the contract does not have, by method and path. */
  unknown: Record<string, number>;
  violations: Finding[];
  byRule: Record<string, number>;
  integration: IntegrationTally;
}

/** Request headers that carry credentials besides the API key: never kept. */
const SECRET_HEADERS = new Set(["cookie", "x-sim-control-token", "proxy-authorization"]);

export class Judge {
  private readonly sequences = new Sequences();
  private readonly labels = new Map<string, string>();
  readonly report: ProxyReport;

  private readonly recorder: Recorder | null;
  constructor(upstream: string, now = Date.now(), recorder: Recorder | null = null) {
    this.recorder = recorder;
    this.report = {
      upstream,
      startedAt: new Date(now).toISOString(),
      exchanges: 0,
      operations: {},
      unknown: {},
      violations: [],
      byRule: {},
      integration: this.sequences.tally,
    };
  }

  /** Judges one exchange; returns what it found (also added to the report). */
  judge(o: Observed): Finding[] {
    const pathname = o.path ?? new URL(o.url).pathname;
    const match = matchOperation(o.method, pathname);
    const operation = match.kind === "found" ? match.operation : null;
    const secret = /^Bearer (\S+)$/.exec(o.requestHeaders.authorization ?? "")?.[1] ?? null;
    // The key is kept, and known again, by its digest only.
    const key = secret === null ? null : hash(secret);
    const label = key ? this.labelOf(key) : null;
    // What curl sets by itself stays out of the replay command; tokens other than the key are redacted.
    const headers: Record<string, string> = {};
    for (const k in o.requestHeaders) {
      if (k === "host" || k === "content-length" || k === "connection") continue;
      headers[k] = SECRET_HEADERS.has(k) ? "<redacted>" : (o.requestHeaders[k] as string);
    }
    if (headers.authorization !== undefined)
      headers.authorization = label ? `Bearer <${label} key>` : "<redacted>";
    const ex = new Exchange(
      o.method,
      o.url,
      operation,
      headers,
      label,
      o.requestBody,
      o.status,
      o.responseHeaders,
      o.responseBody ?? "",
      o.ms,
    );
    // Stamped only when something was found: most exchanges find nothing.
    let stamp: string | undefined;
    const at = (): string => (stamp ??= new Date(o.at).toISOString());
    const refused = requestViolations(ex, match);
    const found: Finding[] = [];
    const add = (vs: readonly Violation[], who: Finding["who"]): void => {
      for (const v of vs) found.push(findingOf(v, who, at()));
    };
    add(refused, "request");
    add(refusals(ex, refused, match), "server");
    // A body too large to keep is judged by its status and headers only.
    if (o.responseBody !== null) add(responseViolations(ex), "response");
    add(streamViolations(ex, o), "response");
    if (o.responseBody !== null) add(answerProblems(ex), "response");
    for (const f of this.sequences.observe(ex, key, o.at))
      found.push(findingOf(f.violation, whoOf(f.party), at()));
    this.count(o, operation?.operationId ?? null, pathname);
    this.recorder?.observe(ex, key, match);
    for (const f of found) {
      this.report.violations.push(f);
      const id = f.ruleId ?? f.check;
      this.report.byRule[id] = (this.report.byRule[id] ?? 0) + 1;
    }
    return found;
  }

  /** The upstream did not answer: a report entry, as the client got a 502 for it. */
  unreachable(path: string, reason: string, at: number): void {
    this.report.exchanges++;
    const f: Finding = {
      ...violation({
        check: "proxy/upstream-unreachable",
        rule: `the proxy forwards every request to its upstream (${this.report.upstream})`,
        message: `${path}: the upstream could not be reached (${reason}); the client was answered 502`,
      }),
      who: "server",
      side: "upstream",
      at: new Date(at).toISOString(),
    };
    this.report.violations.push(f);
    this.report.byRule[f.check] = (this.report.byRule[f.check] ?? 0) + 1;
  }

  /** A stable name per key for curl commands (`${KEY_CLIENT_2}`), never the key. */
  private labelOf(key: string): string {
    let label = this.labels.get(key);
    if (!label) {
      label = this.labels.size === 0 ? "client" : `client_${this.labels.size + 1}`;
      this.labels.set(key, label);
    }
    return label;
  }

  private count(o: Observed, operationId: string | null, pathname: string): void {
    this.report.exchanges++;
    if (!operationId) {
      const k = `${o.method} ${pathname}`;
      this.report.unknown[k] = (this.report.unknown[k] ?? 0) + 1;
      return;
    }
    this.report.operations[operationId] ??= { calls: 0, statuses: {} };
    const op = this.report.operations[operationId];
    op.calls++;
    op.statuses[o.status] = (op.statuses[o.status] ?? 0) + 1;
  }
}

/**
 * A preview stream that went through, judged when it ended (it was passed on as it came) by the kit's own
 * rules for its events: their order, their shape, the framing.
 */
function streamViolations(ex: Exchange, o: Observed): Violation[] {
  const ndjson = (o.responseHeaders["content-type"] ?? "").startsWith("application/x-ndjson");
  if (
    ex.operation?.operationId !== "previewFormation" ||
    o.status !== 200 ||
    !ndjson ||
    o.responseBody === null
  )
    return [];
  return streamProblems(o.responseBody).problems.map((message) =>
    violation({
      check: "stream/preview-events",
      rule: ruleText("preview/stream"),
      ruleId: "preview/stream",
      message,
      exchange: ex,
    }),
  );
}

const whoOf = (party: Party): Finding["who"] => (party === "client" ? "client" : "server");

/** A violation as a finding: who showed it, on which side, when. */
function findingOf(v: Violation, who: Finding["who"], at: string): Finding {
  return { ...v, who, side: sideOf(who), at };
}

/** What the contract answers a request that breaks one of these rules, when it breaks that one alone. */
const ANSWER: Partial<Record<RuleId, number>> = {
  "auth/401": 401,
  "input/media-type-415": 415,
  "input/body-size-413": 413,
  "input/invalid-400": 400,
  "ids/malformed-400": 400,
};

/**
 * The upstream's part in a request the contract refuses: a missing key is 401 whatever else is wrong;
 * a request with one kind of problem gets that problem's status; any refused request gets a 4xx, never
 * a success (the kit's generic checks hold a server to the same).
 */
function refusals(ex: Exchange, refused: readonly Violation[], match: Match): Violation[] {
  const say = (rule: RuleId, message: string) => [
    violation({ check: "response/refusal", rule: ruleText(rule), ruleId: rule, message, exchange: ex }),
  ];
  // A JSON media type with parameters, in any case, is still JSON: the simulator's own reading of it.
  if (ex.status === 415 && isJsonMediaType(ex.requestHeaders["content-type"] ?? null))
    return say(
      "input/media-type-415",
      `a body sent as ${ex.requestHeaders["content-type"]} was refused as another media type`,
    );
  if (match.kind === "method-not-allowed") return wrongMethod(ex, match.allowed, say);
  const op = ex.operation ? operationsById().get(ex.operation.operationId) : undefined;
  if (!op) return [];
  // A malformed ID is 400 only where the operation documents 400; elsewhere it names nothing: 404. An
  // operation that documents no 400 reads a bad query value as none, so it sets no expectation.
  const want = (rule: RuleId): number | null =>
    rule === "ids/malformed-400" && !op.statuses.includes(400)
      ? 404
      : op.statuses.includes(ANSWER[rule] as number)
        ? (ANSWER[rule] as number)
        : null;
  const rules = [
    ...new Set(
      refused
        .map((v) => v.ruleId)
        .filter((r): r is RuleId => r !== undefined && r in ANSWER && want(r as RuleId) !== null),
    ),
  ];
  if (rules.length === 0) return optionalBody(ex, refused, op, say);
  if (rules.includes("auth/401"))
    return ex.status !== 401
      ? say("auth/401", `a request without an API key was answered ${ex.status}, not 401`)
      : exactWords(ex, op.prefixes.includes("/api/v1") ? "Unauthorized" : undefined, "auth/401", say);
  if (rules.length === 1) {
    const rule = rules[0] as RuleId;
    const status = want(rule) as number;
    if (ex.status !== status && !otherCause(rule, ex.status, op))
      return say(rule, `a request that ${brokeIt(refused, rule)} was answered ${ex.status}, not ${status}`);
    return rule === "ids/malformed-400" && status === 400
      ? exactWords(ex, idMessage(op, match), "ids/messages", say)
      : [];
  }
  return ex.status >= 400 && ex.status < 500
    ? []
    : say(
        rules[0] as RuleId,
        `a request the contract refuses (${rules.join(", ")}) was answered ${ex.status}, not a 4xx`,
      );
}

type Say = (rule: RuleId, message: string) => Violation[];

/**
 * Refusals for a cause the proxy cannot see: the caller may not see or change the resource (404, 403), or
 * its state refuses the request (409, 422). The description orders none of them against a bad body or
 * query, so a server that looks at access or state first answers one of these, and is right to.
 */
const OTHER_CAUSES = [403, 404, 409, 422];
/** The request problems a server may weigh after access and state (a malformed ID names nothing to check). */
const CONTENT_RULES = new Set(["input/invalid-400", "input/media-type-415", "input/body-size-413"]);

/** Whether `status` refuses a request whose content breaks `rule` for another cause the operation documents. */
export function otherCause(rule: RuleId, status: number, op: Operation): boolean {
  return CONTENT_RULES.has(rule) && OTHER_CAUSES.includes(status) && op.statuses.includes(status);
}

/** The words the contract fixes for an error (`statusMessage`), where it fixes them. */
function exactWords(ex: Exchange, words: string | undefined, rule: RuleId, say: Say): Violation[] {
  const got = (ex.json as { statusMessage?: unknown } | null)?.statusMessage;
  return words === undefined || got === words
    ? []
    : say(rule, `${ex.status} with statusMessage ${JSON.stringify(got)}, not ${JSON.stringify(words)}`);
}

/** x-error-messages of the first malformed path parameter: its "missing" words for a blank value. */
function idMessage(op: Operation, match: Match): string | undefined {
  if (match.kind !== "found") return undefined;
  for (const p of op.parameters) {
    const v = match.params[p.name] ?? "";
    if (p.in === "path" && p.messages && validate(p.schemaRef, v).length > 0)
      return v.trim() === "" ? p.messages.missing : p.messages.invalid;
  }
  return undefined;
}

/** A request the contract does not refuse, without the body its operation makes optional, is served. */
function optionalBody(ex: Exchange, refused: readonly Violation[], op: Operation, say: Say): Violation[] {
  const bodiless = (ex.requestBodyText ?? "") === "";
  if (refused.length || !bodiless || op.bodySchemaRef === null || op.bodyRequired) return [];
  return ex.status === 400 || ex.status === 415
    ? say("input/optional-body", `${op.operationId} without its optional body was answered ${ex.status}`)
    : [];
}

/** A method the path does not serve: a 4xx in the envelope; a 405 names what the path serves in Allow. */
function wrongMethod(ex: Exchange, allowed: readonly string[], say: Say): Violation[] {
  const { pathname, search } = new URL(ex.url);
  if (ex.status < 400 || ex.status >= 500)
    return say(
      "http/wrong-method",
      `${ex.method} ${pathname}, which the path does not serve, was answered ${ex.status}`,
    );
  const problems = envelopeProblems(ex.json, ex.status, [pathname, pathname + search]);
  if (problems.length) return say("errors/envelope", `${ex.method} ${pathname}: ${problems.join("; ")}`);
  const allow = (ex.header("allow") ?? "").split(",").map((x) => x.trim().toUpperCase());
  const missing = allowed.filter((x) => !allow.includes(x));
  return ex.status === 405 && missing.length
    ? say(
        "http/wrong-method",
        `405 for ${ex.method} ${pathname} with Allow ${JSON.stringify(ex.header("allow"))}, which leaves out ${missing.join(", ")}`,
      )
    : [];
}

function brokeIt(refused: readonly Violation[], rule: RuleId): string {
  const first = refused.find((v) => v.ruleId === rule);
  return first ? `broke it (${first.message})` : "broke it";
}
