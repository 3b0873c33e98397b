/**
 * A case of a rule: one request in a world the case makes first, and every answer the description allows
 * it. "Key management requires an active Premium or Team subscription" is not one check but a case per
 * plan and link (Premium, Team, none, SSO-linked), each with its expected status and, where the
 * description states them, its message, `data.code` and fields. Cases are data: the kit runs them
 * (run.ts), and the self-test derives a fault from each mechanically (refuse a valid case, accept a refused
 * one, change a stated value), so the kit's reach follows the description rather than the faults someone
 * thought of.
 */
import type { NamedErrorCode } from "../../src/contract/error-codes.gen.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { CallSpec, Credentials, Exchange } from "../lib/http/http.ts";
import type { Role, TargetInfo } from "../lib/http/target.ts";
import type { CheckContext } from "../lib/running/context.ts";

/** How the case ended, as a cleanup is told: its answer (null if it was not sent) and whether it found anything. */
export interface Ending {
  answer: Exchange | null;
  found: boolean;
}

/** Registers a cleanup that runs right after the case (most recent first), told how the case ended. */
export type Later = (cleanup: (ending: Ending) => Promise<unknown>) => void;

/** What a field of the answer must be, by a dotted path into its JSON body (`data.currentMemberRole`). */
export type Field =
  | { is: unknown }
  | { oneOf: readonly unknown[] }
  | { absent: true }
  | { present: true }
  /** A rule the value keeps (a count that agrees with a list); `breaks` makes a value that does not. */
  | { holds: (value: unknown, body: unknown) => boolean; says: string; breaks: (value: unknown) => unknown };

/** One answer the description allows: its status and what it states of the body. */
export interface Answer {
  status: number;
  /** `statusMessage` word for word (any of these), where the description states the words. */
  message?: string | readonly string[];
  /** `data.code`: one the contract names. */
  code?: NamedErrorCode;
  fields?: Readonly<Record<string, Field>>;
  /** The media type the answer is served as (`application/x-ndjson`), where the description states it. */
  contentType?: string;
  /** Response headers by lower-case name, what each must be (`retry-after`, `cache-control`). */
  headers?: Readonly<Record<string, Field>>;
}

/** The world a case is made in: the target's handles, and what its `given` made. */
export interface CaseWorld {
  readonly info: TargetInfo;
  /** An Audience's ID by handle; a handle the target lacks leaves the case out, naming it. */
  aud(handle: string): string;
  mind(handle: string): string;
  formation(handle: string): string;
  user(role: Role): string;
  price(handle: string): TargetInfo["prices"][string];
  /** What `given` made (IDs, keys, a state read first). */
  readonly made: Readonly<Record<string, unknown>>;
}

/**
 * What a case's precondition made, or why it could not be made: inconclusive, unless a request of the
 * precondition was refused where the description allows it (`refused`), which is a violation of the case's rule.
 */
export type Made =
  | { made: Record<string, unknown>; as?: Credentials }
  | { unmade: string; refused?: Exchange };

export interface Case {
  /** Unique and stable: `<operation> <caller>: <what>` (a fault and a report name it). */
  id: string;
  /** The rule the case judges (its violations name it). */
  rule: RuleId;
  /** Other rules its answer shows (the sharing fields of a read, say): the sentence index reaches them too. */
  also?: readonly RuleId[];
  op: string;
  /** The caller: a role's key, or none (`null`). */
  as: Role | null;
  /** The request, from the world (path parameters, query, body, headers). */
  request(w: CaseWorld): Omit<CallSpec, "op" | "as">;
  /** Every answer the description allows this request in this world (any one of them is right). */
  expect: readonly Answer[] | ((w: CaseWorld) => readonly Answer[]);
  /**
   * Makes the case's precondition (a key of one's own, a copy, a Formation) and registers its cleanup;
   * its own requests are held to what they must answer (a refused setup is a violation of the case's rule).
   */
  given?(ctx: CheckContext, w: CaseWorld, later: Later): Promise<Made>;
  /** The Audience handle a case changes (and puts back): against a deployment it must be changeable. */
  changes?: string;
  /** The case changes state (a read-only run leaves it out). Default: a `given`, or any method but GET. */
  mutates?: boolean;
  /** Only on the simulator, and why a deployment cannot have it. */
  simulatorOnly?: string;
  /** Puts the world back with a reset (what the API cannot undo): not with `--no-reset`. */
  resets?: boolean;
  /** Sent again after the answer: the effect the rule states, read back (nothing added, a key gone). */
  after?: readonly Effect[];
}

/** A read after the case's request that must answer one of `expect` (what the request did, or did not). */
export interface Effect {
  what: string;
  op: string;
  /** Whose key: a role's, the case's own caller's, or one the precondition made. */
  as: Role | "case" | ((w: CaseWorld) => Credentials);
  request(w: CaseWorld, answer: Exchange): Omit<CallSpec, "op" | "as">;
  expect: readonly Answer[] | ((w: CaseWorld, answer: Exchange) => readonly Answer[]);
}

/** The answers a case allows in `w`. */
export function answersOf(c: Case, w: CaseWorld): readonly Answer[] {
  return typeof c.expect === "function" ? c.expect(w) : c.expect;
}

// ---- writing cases ----

/** What a request sends besides its path's Audience: query, body, headers. */
type Rest = Omit<CallSpec, "op" | "as" | "params">;

/** A request to the world's Audience `handle`, sending `rest` (or what `rest` makes of the world) as well. */
export const onAud =
  (handle: string, rest: Rest | ((w: CaseWorld) => Rest) = {}) =>
  (w: CaseWorld): Omit<CallSpec, "op" | "as"> => ({
    params: { audienceId: w.aud(handle) },
    ...(typeof rest === "function" ? rest(w) : rest),
  });

/** A success: `status`, with the fields stated. */
export const ok = (status: number, fields?: Answer["fields"]): Answer =>
  fields ? { status, fields } : { status };

/** A refusal: `status`, with its words where the description states them. */
export const refused = (status: number, message?: string | readonly string[]): Answer =>
  message === undefined ? { status } : { status, message };

/**
 * A request whose path parameter `param` is what the case's precondition made as `made` (a copy, a key),
 * sending `rest` as well.
 */
export const onMade =
  (param: string, made: string = param, rest: Rest = {}) =>
  (w: CaseWorld): Omit<CallSpec, "op" | "as"> => ({ params: { [param]: w.made[made] as string }, ...rest });

/**
 * A case of `op` as the owner on the Audience `handle`, named by `what`: `rest` holds its request, its answers
 * and the rest.
 */
export const ownerOn = (
  handle: string,
  op: string,
  rule: RuleId,
  what: string,
  rest: Omit<Case, "id" | "rule" | "op" | "as">,
): Case => ({ id: `${op} owner on ${handle}: ${what}`, rule, op, as: "owner", ...rest });

/** A case of `op` as `as` with the same request whatever the world (a copy each time it is sent). */
export const fixedRequest = (
  op: string,
  as: Role,
  rule: RuleId,
  what: string,
  request: Omit<CallSpec, "op" | "as">,
  expect: Answer[],
): Case => ({ id: `${op} ${as}: ${what}`, rule, op, as, request: () => structuredClone(request), expect });

/** `op` as `as` with an Audience ID of the right form that names nothing, sending `rest` as well. */
export const unknownAudienceId = (
  op: string,
  as: Role,
  rule: RuleId,
  expect: Answer[],
  what = "an ID that names nothing",
  rest: Rest = {},
): Case => fixedRequest(op, as, rule, what, { params: { audienceId: NOBODY }, ...rest }, expect);

/** `op` as the owner with an Audience ID that is no UUID: 400 `Invalid audience ID format`. */
export const malformedAudienceId = (
  op: string,
  rule: RuleId,
  what = "a malformed Audience ID",
  params: Record<string, string> = {},
): Case =>
  fixedRequest(op, "owner", rule, what, { params: { audienceId: "not-a-uuid", ...params } }, [
    refused(400, "Invalid audience ID format"),
  ]);

/** A refusal by `data.code`. */
export const coded = (status: number, code: NamedErrorCode, fields?: Answer["fields"]): Answer =>
  fields ? { status, code, fields } : { status, code };

export const is = (value: unknown): Field => ({ is: value });
export const oneOf = (...values: unknown[]): Field => ({ oneOf: values });
/** A rule a value keeps, with the value that breaks it (a fault puts that in its place). */
export type Rule = Extract<Field, { holds: unknown }>;

/** Two rules of one value: both hold; the fault that breaks it breaks the second. */
export const both = (a: Rule, b: Rule): Field => ({
  holds: (v, body) => a.holds(v, body) && b.holds(v, body),
  says: `${a.says}, or ${b.says}`,
  breaks: b.breaks,
});

export const ABSENT: Field = { absent: true };
export const NOT_NULL: Field = {
  holds: (v) => v !== null && v !== undefined,
  says: "is null or absent",
  breaks: () => null,
};
export const PRESENT: Field = { present: true };

/** A UUID that names nothing (version 4, so that every schema takes it). */
export const NOBODY = "00000000-0000-4000-8000-00000000c0de";
