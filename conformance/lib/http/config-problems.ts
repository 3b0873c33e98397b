/**
 * Everything wrong with a config file, in one pass, each problem with its JSON pointer: what its schema
 * says (an unknown property by name, a value not among those allowed) and what it refers to (a handle
 * where a handle belongs, an ID where an ID belongs, a role that has a key), before any request is sent.
 */
import type { ErrorObject } from "ajv";

export interface ConfigProblem {
  /** JSON pointer into the config (`/changeable/audiences/main`); "" for the whole file. */
  pointer: string;
  message: string;
}

/** Ajv's errors said so a person can act on them: the unknown property named, the allowed values listed. */
export function schemaProblems(errors: readonly ErrorObject[]): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    if (e.keyword === "additionalProperties")
      out.push({
        pointer: `${e.instancePath}/${pointerToken(String(p.additionalProperty))}`,
        message: `unknown property "${p.additionalProperty}"${known(e)}`,
      });
    else if (e.keyword === "propertyNames")
      continue; // said by the enum error on the name, below
    else if (e.keyword === "enum" && p.allowedValues)
      out.push({
        pointer:
          e.propertyName !== undefined ? `${e.instancePath}/${pointerToken(e.propertyName)}` : e.instancePath,
        message: `${e.propertyName !== undefined ? `"${e.propertyName}" is not a known name` : "must be one of"}: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      });
    else if (e.keyword === "format" && p.format === "uuid")
      out.push({ pointer: e.instancePath, message: "must be an ID (a UUID), not a handle or a name" });
    else out.push({ pointer: e.instancePath, message: e.message ?? e.keyword });
  }
  return out;
}

/** The properties an object with `additionalProperties: false` knows, for the message. */
function known(e: ErrorObject): string {
  const props = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? `; known: ${Object.keys(props).join(", ")}` : "";
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ConfigShape {
  keys?: Record<string, unknown>;
  readable?: { audiences?: Record<string, unknown>; formations?: Record<string, { audience?: unknown }> };
  changeable?: { audiences?: Record<string, unknown> };
  consumable?: { collaborator?: { audience?: unknown; role?: unknown } };
}

/** What the config refers to by handle must be named in it: an Audience handle, a role that has a key. */
export function referenceProblems(raw: unknown): ConfigProblem[] {
  if (typeof raw !== "object" || raw === null) return [];
  const c = raw as ConfigShape;
  const out: ConfigProblem[] = [];
  const handles = new Set([
    ...Object.keys(c.readable?.audiences ?? {}),
    ...Object.keys(c.changeable?.audiences ?? {}),
  ]);
  const list = [...handles].join(", ") || "none";
  const handle = (pointer: string, value: unknown) => {
    if (typeof value !== "string") return;
    if (UUID.test(value))
      out.push({ pointer, message: `"${value}" is an ID; a handle belongs here (one of: ${list})` });
    else if (!handles.has(value))
      out.push({
        pointer,
        message: `"${value}" names no Audience of readable.audiences or changeable.audiences (${list})`,
      });
  };
  for (const [name, f] of Object.entries(c.readable?.formations ?? {}))
    handle(`/readable/formations/${pointerToken(name)}/audience`, f?.audience);
  const collaborator = c.consumable?.collaborator;
  if (collaborator) {
    handle("/consumable/collaborator/audience", collaborator.audience);
    const role = collaborator.role;
    if (typeof role === "string" && c.keys && !(role in c.keys))
      out.push({
        pointer: "/consumable/collaborator/role",
        message: `"${role}" has no key in keys (${Object.keys(c.keys).join(", ")}): the run could not act as them`,
      });
  }
  return out;
}

/** A JSON pointer's token (RFC 6901). */
const pointerToken = (token: string): string => token.replaceAll("~", "~0").replaceAll("/", "~1");
