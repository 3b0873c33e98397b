/**
 * The structural check of a scenario document: ajv over `scenario.schema.json`, the same file editors read,
 * with every problem collected (not only the first) as a JSON pointer and what was expected there.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { compileSchema } from "../../src/contract/validate.ts";
import type { ScenarioProblem } from "../../src/core/scenario.ts";
import schema from "./scenario.schema.json" with { type: "json" };

let validate: ValidateFunction | undefined;

/** Compiled on first use: a host that never loads a document never pays for it. */
function validator(): ValidateFunction {
  validate ??= compileSchema(schema);
  return validate;
}

/** Every structural problem of `doc`; none means it has the scenario format's shape. */
export function schemaProblems(doc: unknown): ScenarioProblem[] {
  const check = validator();
  if (check(doc)) return [];
  const seen = new Set<string>();
  const problems: ScenarioProblem[] = [];
  for (const e of check.errors ?? []) {
    // A choice (member handle or generated members, request or clock step) is written as anyOf for editors
    // and as if/then/else for this check: the if/then/else branch says precisely what failed, so the
    // anyOf's own complaints about the branch not taken are left out.
    if (e.keyword === "anyOf" || e.keyword === "if" || e.schemaPath.includes("/anyOf/")) continue;
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

function pointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
