/**
 * The description as a value: `createContract(document)` reads one OpenAPI 3.1 document into what a reader
 * of it needs (its operations with their parameters and limits, its schemas' validators, the response check,
 * the request sizes it allows) and nothing of how the simulator behaves. The simulator, the conformance kit
 * and the proxy are each handed one; nothing is read from a module that another may have swapped.
 * `ownContract` is the document this package was built from, made once.
 */
import type { OpenApiDocument, Pointers } from "./document.ts";
import { asOpenApiDocument, deref, openapi, pointersInto, resolvePointer } from "./document.ts";
import { LIMITS, type Limits, readLimits } from "./limits.ts";
import { type Operation, operations, operationsById, readOperations } from "./operations.ts";
import { ownSizes, type RequestSizes, requestSizes } from "./request-size.ts";
import { type CheckResponse, checkResponse, responseChecker } from "./responses.ts";
import { ownValidators, Validators } from "./validate.ts";

export interface Contract extends Pointers {
  readonly document: OpenApiDocument;
  readonly operations: readonly Operation[];
  readonly operationsById: ReadonlyMap<string, Operation>;
  readonly limits: Limits;
  readonly sizes: RequestSizes;
  readonly validators: Validators;
  readonly checkResponse: CheckResponse;
}

/** A Contract of `document`; throws when it is not an OpenAPI 3.1 document or lacks a stated limit. */
export function createContract(document: unknown): Contract {
  if (document === openapi) return ownContract;
  const doc = asOpenApiDocument(document);
  const pointers = pointersInto(doc);
  const ops = readOperations(doc, pointers.deref);
  const byId = new Map(ops.map((o) => [o.operationId, o]));
  const validators = new Validators(doc);
  return {
    document: doc,
    ...pointers,
    operations: ops,
    operationsById: byId,
    limits: readLimits(pointers.resolvePointer),
    sizes: requestSizes(doc, ops),
    validators,
    checkResponse: responseChecker({ operationsById: byId, pointers, validators }),
  };
}

/** This package's own description, read by the modules it is made of (they are read once either way). */
export const ownContract: Contract = {
  document: openapi,
  resolvePointer,
  deref,
  operations,
  operationsById,
  limits: LIMITS,
  sizes: ownSizes,
  validators: ownValidators,
  checkResponse,
};
