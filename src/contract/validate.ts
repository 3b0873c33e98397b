/**
 * Validators compiled from the contract with ajv (JSON Schema 2020-12) and ajv-formats.
 *
 * The contract's `x-` extensions that state rules JSON Schema cannot (limits after trimming, uniqueness of
 * item properties) are registered as real keywords here, so the simulator enforces exactly what the
 * document says. Issues are collected, not thrown one by one, as a list tagged by `code`.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openapi } from "./document.ts";

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

export interface ValidationIssue {
  /** The JSON Schema keyword that failed (`type`, `maxLength`, `required`, `x-max-trimmed-length`…). */
  code: string;
  /** JSON pointer into the validated value. */
  path: string;
  message: string;
  params: Record<string, unknown>;
}

function trimmedLengthKeyword(keyword: string, ok: (len: number, limit: number) => boolean) {
  return {
    keyword,
    type: "string" as const,
    schemaType: "number" as const,
    errors: true,
    validate: function check(limit: number, data: string) {
      const valid = ok(data.trim().length, limit);
      if (!valid) {
        (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
          {
            keyword,
            params: { limit },
            message: `must be ${keyword.includes("max") ? "at most" : "at least"} ${limit} characters after trimming`,
          },
        ];
      }
      return valid;
    },
  };
}

function uniqueItemPropertiesKeyword() {
  return {
    keyword: "x-unique-item-properties",
    type: "array" as const,
    schemaType: "array" as const,
    errors: true,
    validate: function check(props: string[], data: unknown[]) {
      for (const prop of props) {
        const seen = new Set<unknown>();
        for (const item of data) {
          if (!item || typeof item !== "object") continue;
          const v = (item as Record<string, unknown>)[prop];
          if (typeof v === "string" && seen.has(v.trim())) {
            (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
              {
                keyword: "x-unique-item-properties",
                params: { property: prop },
                message: `items must have unique ${prop} values`,
              },
            ];
            return false;
          }
          seen.add(typeof v === "string" ? v.trim() : v);
        }
      }
      return true;
    },
  };
}

/** Annotation-only extensions: they document a rule that the engine or a handler enforces. */
const ANNOTATIONS = ["x-max-items-before-deduplication", "x-ignored-beyond-length", "example"];

function createAjv(document: object): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  ajv.addKeyword(trimmedLengthKeyword("x-max-trimmed-length", (len, limit) => len <= limit));
  ajv.addKeyword(trimmedLengthKeyword("x-min-trimmed-length", (len, limit) => len >= limit));
  ajv.addKeyword(uniqueItemPropertiesKeyword());
  for (const k of ANNOTATIONS) ajv.addKeyword({ keyword: k });
  const { components, paths } = document as { components?: unknown; paths?: unknown };
  ajv.addSchema({ $id: "openapi.json", components, paths });
  return ajv;
}

export function toIssues(errors: readonly ErrorObject[] | null | undefined): ValidationIssue[] {
  return (errors ?? []).map((e) => ({
    code: e.keyword,
    path: e.instancePath,
    message: e.message ?? "is invalid",
    params: e.params as Record<string, unknown>,
  }));
}

/** The validators of one document, each compiled on first use (ajv itself is made on the first). */
export class Validators {
  private ajv: Ajv2020 | null = null;
  private readonly compiled = new Map<string, ValidateFunction>();

  private readonly document: object;
  constructor(document: object) {
    this.document = document;
  }

  /** The validator for the schema at `pointer` (`#/components/schemas/X`), compiled once on first use. */
  validatorFor(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      this.ajv ??= createAjv(this.document);
      v = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  /**
   * A validator for a schema of its own (a scenario document's), compiled on the same ajv as the
   * document's: formats and the contract's keywords included.
   */
  compileSchema(schema: object): ValidateFunction {
    this.ajv ??= createAjv(this.document);
    return this.ajv.compile(schema);
  }

  /** Validates `value` against the schema at `pointer`; an empty list means valid. */
  validate(pointer: string, value: unknown): ValidationIssue[] {
    const v = this.validatorFor(pointer);
    return v(value) ? [] : toIssues(v.errors);
  }
}

/** This package's own description's validators (the simulator's). */
export const ownValidators = new Validators(openapi);
export const validatorFor = (pointer: string): ValidateFunction => ownValidators.validatorFor(pointer);
export const compileSchema = (schema: object): ValidateFunction => ownValidators.compileSchema(schema);
export const validate = (pointer: string, value: unknown): ValidationIssue[] =>
  ownValidators.validate(pointer, value);
