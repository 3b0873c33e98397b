/**
 * The structural check of a scenario document: ajv over `scenario.schema.json`, the same file editors read,
 * with every problem collected (not only the first) as a JSON pointer and what was expected there.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import schema from "../../../scenario.schema.json" with { type: "json" };
import { pointerSegment } from "../../contract/pointer.ts";
import { compileSchema } from "../../contract/validate.ts";
import type { ScenarioProblem } from "../../core/world/scenario.ts";

let validate: ValidateFunction | undefined;

/** Compiled on first use: a host that never loads a document never pays for it. */
function validator(): ValidateFunction {
  validate ??= compileSchema(withoutEditorChoices(schema) as typeof schema);
  return validate;
}

/**
 * A choice (a member handle or generated members, a request or a clock step) is written twice: as anyOf for
 * editors, which offer the branches, and as if/then/else, which says precisely what failed in the branch
 * the value meant. Checked with both, the anyOf would also report the branch not taken (a request step
 * "lacks advanceMs"), and its errors come from the same $refs; so this check drops the anyOf wherever an
 * if stands beside it. The two accept the same documents: the if/then/else reaches every branch.
 */
function withoutEditorChoices(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutEditorChoices);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  const dropAnyOf = "if" in node && "anyOf" in node;
  for (const [k, v] of Object.entries(node))
    if (!(dropAnyOf && k === "anyOf")) out[k] = withoutEditorChoices(v);
  return out;
}

/** Every structural problem of `doc`; none means it has the scenario format's shape. */
export function schemaProblems(doc: unknown): ScenarioProblem[] {
  const check = validator();
  if (check(doc)) return [];
  const seen = new Set<string>();
  const problems: ScenarioProblem[] = [];
  for (const e of check.errors ?? []) {
    // The if's own "must match then/else" adds nothing to what failed inside the branch.
    if (e.keyword === "if") continue;
    // A bad handle is said once, by propertyNames at the handle's own path, not again by the pattern within.
    if (e.propertyName !== undefined && e.keyword !== "propertyNames") continue;
    const problem = { path: pathOf(e), message: messageOf(e) };
    const key = `${problem.path} ${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function pathOf(e: ErrorObject): string {
  if (e.keyword === "additionalProperties")
    return `${e.instancePath}/${pointerSegment(String(e.params.additionalProperty))}`;
  if (e.keyword === "required")
    return `${e.instancePath}/${pointerSegment(String(e.params.missingProperty))}`;
  if (e.keyword === "propertyNames")
    return `${e.instancePath}/${pointerSegment(String(e.params.propertyName))}`;
  return e.instancePath;
}

function messageOf(e: ErrorObject): string {
  switch (e.keyword) {
    case "additionalProperties":
      return "is not a field of the scenario format here";
    case "required":
      return "is required";
    case "enum":
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "propertyNames":
      return "is not a valid handle: a letter, then up to 63 letters, digits, _ or -";
    case "pattern":
      return `must match ${e.params.pattern}`;
    case "not":
      return "is a reserved value";
    default:
      return e.message ?? e.keyword;
  }
}
