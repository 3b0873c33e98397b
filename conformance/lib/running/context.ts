/**
 * What a check runs with: the target, an HTTP client whose every exchange is checked against the contract,
 * coverage, seeded properties and cleanup. Checks are plain async functions over a CheckContext, so the
 * same check runs from a vitest file against any target, or from a self-test against a broken server.
 */
import fc from "fast-check";
import { responseViolations } from "../description/contract.ts";
import { deadlineText, type Machine } from "../description/deadlines.ts";
import { type AnyRuleId, RULES, type RuleId, ruleSection } from "../description/rules.ts";
import type { CallSpec, Credentials, PaceMemory, Silence } from "../http/http.ts";
import { BudgetSpent, Exchange, HttpClient, WindowSpent } from "../http/http.ts";
import type { Role, TargetInfo } from "../http/target.ts";
import { Coverage } from "../reporting/coverage.ts";
import { type Violation, type ViolationInput, violation } from "../reporting/report.ts";
import { Target } from "./target-view.ts";

export { MissingHandle, Target } from "./target-view.ts";

export interface Needs {
  roles?: Role[];
  /** User IDs (not keys) of these roles. */
  users?: Role[];
  audiences?: string[];
  /** Audiences the run may change (implies the check mutates). */
  changeable?: string[];
  formations?: string[];
  minds?: string[];
  prices?: string[];
  /** Needs the simulator's control plane (clock, config). */
  simulator?: boolean;
  /** The plan a role must be on (the config's `plans`, or the simulator's manifest). */
  plan?: [Role, string];
  /** Puts the simulator back with a reset afterwards (what it changes, the API cannot undo). */
  reset?: boolean;
  /**
   * Removes a collaborator, whom the API cannot invite back: on the simulator a reset puts them back; a
   * deployment only when its config offers one the run may remove (`consumable.collaborator`).
   */
  consumesCollaborator?: boolean;
  /** Needs a known rate limit: the simulator, or `rateLimitPerMinute` in the config. */
  rateLimit?: boolean;
}

export interface CheckDef {
  name: string;
  /** The rules of the API description it covers (lib/description/rules.ts): what the coverage report counts. */
  rules: readonly RuleId[];
  /** One line: what the check asserts (by default, its rules' lines). */
  title: string;
  needs?: Needs;
  /** Changes state on the target (skipped by --read-only). */
  mutates?: boolean;
  /**
   * Works only on what it makes itself (a private copy), so against a deployment it may run beside the
   * other checks while it waits for background work in real time.
   */
  concurrent?: boolean;
  run(ctx: CheckContext): Promise<void>;
}

/**
 * A check by its name and the rules it covers. What it asserts is said once, by those rules' lines in the
 * catalogue (lib/description/rules.ts), unless `title` narrows it (checks of one rule that differ in what they reach).
 */
export function check<const R extends RuleId>(
  name: string,
  rules: readonly R[],
  def: Omit<CheckDef, "name" | "rules" | "title" | "run"> & {
    title?: string;
    /** Its context reports only the rules the check declares: naming another does not compile. */
    run(ctx: CheckContext<R>): Promise<void>;
  },
): CheckDef {
  return { ...def, name, rules, title: def.title ?? rules.map((r) => RULES[r][1]).join("; ") };
}

/** Marks a violation whose catalogue rule its check does not declare: a fault of the kit, not the target. */
export const UNDECLARED_RULE = "[kit: not among the check's rules]";

/** A rule in a violation: a catalogue rule (shown with its line), or the words of a schema or response rule. */
/** A rule as a violation states it: by its ID, or written out (a contract rule quoted as it stands). */
export type RuleRef = AnyRuleId | (string & {});

export function ruleText(rule: RuleRef): string {
  if (!Object.hasOwn(RULES, rule)) return rule;
  const id = rule as RuleId;
  return `${RULES[id][1]} (${id}; the description's ${ruleSection(id)})`;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** How a check reaches the target: `fetch` replaces undici (and global fetch for the control plane). */
export interface RunOptions {
  fetch?: typeof globalThis.fetch;
  /** The run's memory of rate-limit windows, shared by its checks. */
  pace?: PaceMemory;
  /** The run's memory of a target gone silent, shared by its checks. */
  silence?: Silence;
  /** Told how many requests the check sent, per key. */
  onRequests?: (byKey: ReadonlyMap<string, number>) => void;
  /** Told when the check ran out of its time budget against a deployment (it is then skipped, not passed). */
  onSkip?: (reason: string) => void;
  /** Told what the check could not clean up. */
  onLeftovers?: (what: string[]) => void;
  /** Told what the check left unjudged to stay within a quick run's budget. */
  onPartial?: (what: string[]) => void;
  /**
   * Told of a violation the moment it is found, once per rule of the check: before a property ends or a
   * failing sequence is shrunk, so a run says what it found while it still works on the details.
   */
  onFound?: (v: Violation) => void;
  /** Told what the check used up on purpose (a consumable of the config). */
  onConsumed?: (what: string[]) => void;
  /** Told what the check met and could not judge (an answer it could not read on, a precondition not made). */
  onInconclusive?: (what: string[]) => void;
  /** Told what a case's precondition made (the self-test's faults of that case read it). */
  onCaseMade?: (caseId: string, made: Readonly<Record<string, unknown>>) => void;
  /** Told that the run's time budget ran out while the check was under way (what it found still stands). */
  onCut?: (reason: string) => void;
}

export interface PropertyOptions {
  numRuns: number;
}

/**
 * Requests of each account's window a quick deployment run leaves for undoing what its checks made: they
 * stop (judged in part) at this many, so that their cleanups need not wait a minute for the next window.
 */
const KEEP_FOR_UNDO = 12;

/** What `require` throws: the violation is reported, and the part being judged ends (the runner's to catch). */
export class Unmet extends Error {
  override readonly name = "Unmet";
}

/** What a check runs with; `R`, the rules it may report, narrows its assertions to the rules it declares. */
export class CheckContext<R extends RuleId = RuleId> {
  readonly target: Target;
  readonly client: HttpClient;
  readonly coverage: Coverage;
  private readonly found: Violation[] = [];
  private sinks: Violation[][] = [];
  private readonly cleanups: (() => Promise<unknown>)[] = [];
  private readonly detach: () => void;
  /** What the check made or changed and could not put back; reported at the end of the run. */
  readonly leftovers: string[] = [];

  readonly leftover = (what: string): void => void this.leftovers.push(what);

  /** What the check judged less of than a deep run would (a quick run's budget), said in the summary. */
  readonly partial: string[] = [];

  readonly partly = (what: string): void => void this.partial.push(what);

  /** What the check used up on purpose and the target keeps so (a collaborator the config let it remove). */
  readonly consumed: string[] = [];

  readonly consume = (what: string): void => void this.consumed.push(what);

  /**
   * What the check met and could not judge either way: a precondition it could not make, an answer that
   * leaves nothing to judge further. Never a pass: the summary counts it, and `--strict` fails the run.
   */
  readonly unjudged: string[] = [];

  readonly inconclusive = (what: string): void => void this.unjudged.push(what);

  /** Why the check could not see all it should (a deployment's time budget ran out), or null. */
  skipped: string | null = null;
  /** Answers the check has had other than 429: none, and a spent window leaves it unjudged, not judged in part. */
  answered = 0;

  /** Rules already told to `onFound`: shrinking meets the same violation again and again. */
  private readonly announced = new Set<string>();
  private readonly onFound: ((v: Violation) => void) | undefined;
  /** Told what a case's precondition made (RunOptions.onCaseMade). */
  readonly onCaseMade: RunOptions["onCaseMade"];

  readonly checkName: string;
  /** The rules the check declares: the only catalogue rules it may report. */
  readonly rules: readonly RuleId[];
  constructor(
    info: TargetInfo,
    checkName: string,
    coverage = new Coverage(),
    options: RunOptions = {},
    rules: readonly RuleId[] = [],
  ) {
    this.checkName = checkName;
    this.rules = rules;
    this.onFound = options.onFound;
    this.onCaseMade = options.onCaseMade;
    this.target = new Target(info, options.fetch);
    this.coverage = coverage;
    const sim = info.kind === "simulator";
    this.client = new HttpClient({
      baseUrl: info.baseUrl,
      prefixFor: (p) => this.target.prefixFor(p),
      waitWindow: (ms) => this.target.advance(ms),
      backoffBaseMs: sim ? 20 : 500,
      maxAttempts: 3,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.pace ? { pace: options.pace } : {}),
      ...(options.silence ? { silence: options.silence } : {}),
      deadline: info.deadline ?? null,
      // A quick run against a deployment spends one window per account and waits for no other.
      waitForWindows: !(info.quick && info.kind === "deployment"),
      keepForUndo: KEEP_FOR_UNDO,
    });
    this.detach = this.client.observe((ex) => {
      if (ex.status !== 429) this.answered++;
      this.coverage.record(ex);
      for (const v of responseViolations(ex)) this.push({ ...v, foundBy: this.checkName });
    });
  }

  get info(): TargetInfo {
    return this.target.info;
  }

  call(spec: CallSpec): Promise<Exchange> {
    return this.client.call(spec);
  }

  /** Shorthand: `as(role)` credentials. */
  as(role: Role): Credentials {
    return this.target.cred(role);
  }

  private push(v: Violation): void {
    (this.sinks.at(-1) ?? this.found).push(v);
    if (!this.onFound || this.announced.has(v.ruleId ?? v.rule)) return;
    this.announced.add(v.ruleId ?? v.rule);
    this.onFound(v);
  }

  report(
    input: Omit<ViolationInput, "check" | "rule" | "ruleId"> & { check?: string; rule: AnyRuleId },
  ): void {
    // A helper may report a rule its check does not declare (inside a check, the types forbid it): the
    // finding still stands, and the self-test fails on the mark.
    const undeclared =
      Object.hasOwn(RULES, input.rule) && this.rules.length > 0 && !this.rules.includes(input.rule as RuleId);
    const rule = `${ruleText(input.rule)}${undeclared ? ` ${UNDECLARED_RULE}` : ""}`;
    const check = input.check ?? this.checkName;
    const { message, exchange, operation } = input;
    const where = { ...(exchange ? { exchange } : {}), ...(operation ? { operation } : {}) };
    this.push(violation({ check, rule, message, ...where, ruleId: input.rule }));
  }

  /** Reports `message` under this check and one of its rules unless `ok`. Returns ok, so callers can stop early. */
  expect(ok: boolean, rule: R, message: string, exchange?: Exchange | null): boolean {
    if (!ok) this.report({ check: this.checkName, rule, message, exchange: exchange ?? null });
    return ok;
  }

  /** Reports under `rule` unless `exchange` answered `status`; `what` says what was asked, for the message. */
  expectStatus(exchange: Exchange, status: number, rule: R, what: string): boolean {
    return this.expect(
      exchange.status === status,
      rule,
      `${what} answered ${exchange.status}, not ${status}`,
      exchange,
    );
  }

  /**
   * Reports `message` under `rule` unless `ok`, and then ends the part being judged (the check, one example of
   * a property, or a `part`): what follows needed it. The report is made before the part ends, so an answer
   * the check did not expect is never passed over in silence.
   */
  require(ok: boolean, rule: R, message: string, exchange?: Exchange | null): void {
    if (!this.expect(ok, rule, message, exchange)) throw new Unmet(message);
  }

  /** `expectStatus`, and then the part being judged ends unless it held (as `require`). */
  requireStatus(exchange: Exchange, status: number, rule: R, what: string): void {
    if (!this.expectStatus(exchange, status, rule, what))
      throw new Unmet(`${what} answered ${exchange.status}`);
  }

  /**
   * Ends the part being judged after a violation already reported (two views that disagree) left nothing
   * further to judge on it; `why` says which.
   */
  endAfterReport(why: string): never {
    throw new Unmet(why);
  }

  /** Judges one part of a check (an operation, a variant, a request): a requirement it does not meet ends that part only. */
  async part(body: () => void | Promise<void>): Promise<void> {
    try {
      await body();
    } catch (e) {
      if (!(e instanceof Unmet)) throw e;
    }
  }

  /** Reports under `rule` unless `exchange` answered `status` with `data.code` `code` (the API's error codes). */
  expectCode(exchange: Exchange, status: number, code: string, rule: R, what: string): boolean {
    const got = `${exchange.status} ${exchange.body?.data?.code ?? "(no code)"}`;
    const ok = exchange.status === status && exchange.body?.data?.code === code;
    return this.expect(ok, rule, `${what} answered ${got}, not ${status} ${code}`, exchange);
  }

  /** Milliseconds left of the run's time budget (Infinity without one). */
  budgetLeft(): number {
    const d = this.info.deadline;
    return d == null ? Number.POSITIVE_INFINITY : d - Date.now();
  }

  /** How many violations the check has found so far (a case's cleanup asks whether the case found one). */
  reportedCount(): number {
    return this.found.length + this.sinks.reduce((n, s) => n + s.length, 0);
  }

  /** Registers cleanup that runs after the check, whatever happened (most recent first). */
  defer(fn: () => Promise<unknown>): void {
    this.cleanups.unshift(fn);
  }

  /** The fast-check seed of a property of this check: the run's seed mixed with the property's label. */
  propertySeed(label: string): number {
    return (this.info.seed ^ hash(`${this.checkName}:${label}`)) >>> 0;
  }

  /** Runs `body` with what it finds kept apart and returned (a model run judges its own sequence). */
  async isolate(body: () => Promise<void>): Promise<Violation[]> {
    const sink: Violation[] = [];
    this.sinks.push(sink);
    try {
      await body();
    } finally {
      this.sinks.splice(this.sinks.lastIndexOf(sink), 1);
    }
    return sink;
  }

  /** Adds findings of an isolated run to what the check reports. */
  adopt(found: readonly Violation[]): void {
    this.found.push(...found);
  }

  /** A property's runs: `--runs`, else its default, halved in a quick run (one window per account). */
  numRuns(defaultRuns: number): number {
    return this.info.runs ?? (this.info.quick ? Math.ceil(defaultRuns / 2) : defaultRuns);
  }

  /**
   * Runs a fast-check property whose body makes requests. A run fails when it produced any violation
   * (its own or one the response rules found in its exchanges); the first failing run stops the property
   * (no shrinking: every run costs requests) and its violations carry the seeds and path to replay it.
   */
  async property<T>(
    label: string,
    arb: fc.Arbitrary<T>,
    body: (value: T) => Promise<void>,
    options: PropertyOptions,
  ): Promise<void> {
    const seed = this.propertySeed(label);
    let failing: Violation[] = [];
    const result = await fc.check(
      fc.asyncProperty(arb, async (value) => {
        const sink: Violation[] = [];
        this.sinks.push(sink);
        try {
          await body(value);
        } catch (e) {
          // A requirement the example did not meet ends the example; its report makes the example fail.
          if (!(e instanceof Unmet)) throw e;
        } finally {
          this.sinks.pop();
        }
        if (sink.length > 0) failing = sink;
        return sink.length === 0;
      }),
      { seed, numRuns: this.numRuns(options.numRuns), endOnFailure: true },
    );
    if (result.failed && failing.length === 0 && result.errorInstance) throw result.errorInstance;
    for (const v of failing) {
      this.found.push({
        ...v,
        seed: this.info.seed,
        propertySeed: seed,
        path: result.counterexamplePath ?? "",
        message: `${v.message} (property "${label}", input ${fc.stringify(result.counterexample?.[0]).slice(0, 300)})`,
      });
    }
  }

  /**
   * Waits until `done()` holds: on the simulator by moving its clock in steps, against a deployment by
   * polling with backoff (from `stepMs`, a quarter longer each time, at most 3 s: states that pass are
   * still seen). A background `machine` is waited for until its deadline (lib/description/deadlines.ts), in virtual
   * time on the simulator (in steps of `stepMs` for a minute, then straight to the deadline); anything
   * else within `pollTimeoutMs` (on the simulator, 120 steps). Returns whether it held in time.
   */
  async waitUntil(done: () => Promise<boolean>, stepMs = 1_000, machine?: Machine): Promise<boolean> {
    const limit = machine ? this.info.deadlines[machine] : this.info.pollTimeoutMs;
    const deadline = Date.now() + limit;
    let waited = 0;
    for (let i = 0; ; i++) {
      if (await done()) return true;
      if (!this.target.isSimulator) {
        if (Date.now() > deadline) return false;
        await this.target.advance(Math.min(stepMs * 1.25 ** i, 3_000));
        continue;
      }
      if (machine ? waited >= limit : i > 120) return false;
      const step = machine && i >= 60 ? limit - waited : stepMs;
      await this.target.advance(step);
      waited += step;
    }
  }

  /**
   * A finished state stays finished: once `read` has said `expected`, time moves on (the simulator's clock
   * by a minute, an hour and a day; against a deployment a few real seconds) and each read after must say
   * it still. A job that completes and then, re-read late, is running again or gone breaks its machine.
   */
  async stillAfter(
    rule: R,
    what: string,
    expected: string,
    read: () => Promise<{ state: unknown; exchange: Exchange }>,
  ): Promise<void> {
    const steps = this.target.isSimulator ? [60_000, 3_600_000, 86_400_000] : [2_000];
    for (const ms of steps) {
      await this.target.advance(ms);
      const { state, exchange } = await read();
      const ok = this.expect(
        String(state) === expected,
        rule,
        `${what} was ${expected}; ${ms / 1000} s later it is ${String(state)}`,
        exchange,
      );
      if (!ok) return;
    }
  }

  /**
   * State that moves with time did not arrive. A background `machine` has a deadline, and past it that is a
   * violation in both modes; anything else is one on the simulator (the kit moves its clock) and, against
   * a deployment, the check is reported as skipped with the reason.
   */
  outOfTime(rule: AnyRuleId, message: string, exchange?: Exchange | null, machine?: Machine): void {
    if (machine) {
      const limit = deadlineText(machine, this.info.deadlines[machine], this.info.deadlinesStated);
      this.report({ rule, message: `${message}: past the deadline of ${limit}`, exchange: exchange ?? null });
    } else if (this.target.isSimulator) this.report({ rule, message, exchange: exchange ?? null });
    else this.skipped ??= `out of time (pollTimeoutMs ${this.info.pollTimeoutMs}): ${message}`;
  }

  /**
   * Undoing what the check made is worth a wait for a window even in a quick run (within its budget), and
   * may spend what the run kept of each window for it. Returns how to go back to the check's own pacing.
   */
  undoingFromNowOn(): () => void {
    const o = this.client.options;
    const before = { waitForWindows: o.waitForWindows, keepForUndo: o.keepForUndo };
    o.waitForWindows = true;
    o.keepForUndo = 0;
    return () => Object.assign(o, before);
  }

  /** Runs the cleanups and returns everything found. */
  async finish(): Promise<Violation[]> {
    this.sinks = [];
    this.undoingFromNowOn();
    for (const fn of this.cleanups) {
      try {
        const out = await fn();
        // A cleanup request the target refused (other than "already gone") left something behind.
        if (out instanceof Exchange && out.status >= 400 && out.status !== 404)
          this.leftover(`${out.method} ${out.pathname} answered ${out.status}`);
      } catch (e) {
        this.leftover((e as Error).message);
      }
    }
    this.detach();
    return this.found;
  }
}

/** Runs one check against a target and returns its violations (after its cleanup). */
export async function runCheck(
  def: CheckDef,
  info: TargetInfo,
  coverage?: Coverage,
  options: RunOptions = {},
): Promise<Violation[]> {
  const ctx = new CheckContext(info, def.name, coverage, options, def.rules);
  let failure: unknown = null;
  let cut: string | null = null;
  try {
    await def.run(ctx);
  } catch (e) {
    if (e instanceof Unmet) {
      // A requirement unmet ended the check: the violation that says so is already among what it found.
    }
    // The run's time budget ran out under the check: it ends here with what it found, neither passed nor failed.
    else if (e instanceof BudgetSpent) cut = e.message;
    // A quick run's window ran out under it: judged in part, and --deep judges the rest.
    else if (e instanceof WindowSpent)
      if (ctx.answered === 0)
        ctx.skipped ??= `left for --deep: ${e.message} (a quick run waits for no window)`;
      else ctx.partly(`${e.message} in this quick run: --deep judges the rest`);
    else failure = e;
  }
  const found = await ctx.finish();
  options.onRequests?.(ctx.client.sent);
  if (ctx.skipped) options.onSkip?.(ctx.skipped);
  if (ctx.leftovers.length) options.onLeftovers?.(ctx.leftovers);
  if (ctx.partial.length) options.onPartial?.(ctx.partial);
  if (ctx.consumed.length) options.onConsumed?.(ctx.consumed);
  if (ctx.unjudged.length) options.onInconclusive?.(ctx.unjudged);
  if (cut) options.onCut?.(cut);
  if (failure) {
    // A check that could not finish (the target hung up, or answered something it could not read) still
    // hands over what it found before that.
    const err = failure as Error;
    err.message = `${def.name} could not finish: ${err.message}${
      found.length
        ? `\n(after ${found.length} violation(s): ${found
            .map((v) => v.message)
            .join("; ")
            .slice(0, 2000)})`
        : ""
    }`;
    (err as Error & { violations?: Violation[] }).violations = found;
    throw err;
  }
  return found;
}
