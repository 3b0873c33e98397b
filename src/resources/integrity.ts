/**
 * Whether a saved world may be loaded: a snapshot is input (people keep them in their repositories, edit
 * them by hand, share them), so before one replaces a world every record is held to
 *
 * - its type: the record types of the state, as `records.schema.json` states them (generated from
 *   records.ts, so this follows the types instead of restating them);
 * - what it is served as: IDs the contract serves as UUIDs are UUIDs, times the contract serves as
 *   date-times are instants a date-time can state;
 * - the world's invariants: every reference resolves (owners, members, Formations' Audiences, keys' users,
 *   teams, collaborators), a table's key is its record's ID, members are distinct and within the owner's
 *   plan cap, a user's Minds within the Mind cap.
 *
 * Every problem is reported, each with its JSON pointer into the snapshot; any problem refuses the whole
 * snapshot (src/core/world/world.ts), and the world that was serving stays.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { resolvePointer } from "../contract/document.ts";
import { pointerSegment } from "../contract/pointer.ts";
import type { Snapshot, SnapshotProblem, SerializedState as State } from "../core/persistence/snapshot.ts";
import { memberCap, mindCap } from "../core/world/plans.ts";
import type { AudienceRecord, MindRecord, UserRecord } from "../core/world/state.ts";
import recordSchema from "./records.schema.json" with { type: "json" };

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

/** Every problem of a snapshot's world; none means it may be loaded. */
export function snapshotProblems(snap: Snapshot): SnapshotProblem[] {
  const problems: SnapshotProblem[] = [];
  const typed = recordTypeProblems(snap.state, problems);
  // Caps are counted over records of the right type only; references are followed everywhere, and one to
  // a record that is there, however wrong, resolves: each problem is reported once, at its own record.
  referenceProblems(snap.state, typed, problems);
  const users = new Set((snap.state.tables.users ?? []).map(([key]) => key));
  for (const [handle, user] of Object.entries(snap.manifest.users))
    if (!users.has(user?.id as string))
      problems.push({
        path: `/manifest/users/${pointerSegment(handle)}/id`,
        message: "names no user of the state",
      });
  return problems;
}

/**
 * The record schema's own ajv (ajv-formats for the contract's formats): compiling the contract's whole
 * ajv, or every table's validator, took about 150 ms of a start from a state file; a world's tables are
 * compiled as they are met (the default world's in about 20 ms), their definitions shared by reference.
 */
let records: Ajv2020 | undefined;
const tableValidators = new Map<string, ValidateFunction>();

function recordsAjv(): Ajv2020 {
  if (records) return records;
  records = new Ajv2020({ allErrors: true, strict: false });
  addFormats(records);
  records.addSchema({ $id: "records.json", definitions: recordSchema.definitions });
  return records;
}

/** The validator of one table: an array of `[key, record]` entries, the record as records.schema.json says. */
function tableValidator(name: string): ValidateFunction {
  let v = tableValidators.get(name);
  if (!v) {
    const record = { $ref: `records.json#/definitions/SnapshotTables/properties/${pointerSegment(name)}` };
    v = recordsAjv().compile({
      type: "array",
      items: { type: "array", prefixItems: [{ type: "string" }, record], minItems: 2, maxItems: 2 },
    });
    tableValidators.set(name, v);
  }
  return v;
}

let uuid: ValidateFunction | undefined;

/** An ID the contract serves as a UUID: the schema of the Audience's `id`, read from the contract. */
function isServedUuid(id: string): boolean {
  uuid ??= recordsAjv().compile(resolvePointer(UUID) as object);
  return uuid(id) === true;
}

/** What a contract serves as a UUID (the Audience's `id` stands for every resource ID it serves). */
const UUID = "#/components/schemas/Audience/properties/id";
const UUID_TABLES = new Set(["users", "minds", "audiences", "formations"]);
/** Epoch-millisecond fields served as date-times: within what a date-time can state. */
const TIME_FIELDS = new Set(["createdAt", "updatedAt", "lastUsedAt", "invitedAt", "joinedAt", "deletedAt"]);
const MAX_TIME = 8.64e15;

/** The keys of records of the right type, by table (what references may be followed into); problems. */
function recordTypeProblems(state: State, problems: SnapshotProblem[]): Map<string, Set<string>> {
  const known = new Set(Object.keys(recordSchema.definitions.SnapshotTables.properties));
  const typed = new Map<string, Set<string>>();
  for (const [group, tables] of [
    ["tables", state.tables],
    ["extra", state.extra],
  ] as const) {
    for (const [name, entries] of Object.entries(tables)) {
      const at = `/state/${group}/${pointerSegment(name)}`;
      if (!known.has(name)) {
        problems.push({ path: at, message: "is no table of this simulator" });
        continue;
      }
      // Entries with a problem, by index.
      const bad = new Set<string>();
      const check = tableValidator(name);
      if (!check(entries))
        for (const e of check.errors ?? []) {
          bad.add(e.instancePath.split("/")[1] as string);
          problems.push({ path: `${at}${e.instancePath}`, message: e.message ?? e.keyword });
        }
      const ok = new Set<string>();
      typed.set(name, ok);
      entries.forEach(([key, record], i) => {
        if (bad.has(String(i))) return;
        servedAsProblems(name, key, record, `${at}/${i}`, problems);
        ok.add(key);
      });
    }
  }
  return typed;
}

function servedAsProblems(
  table: string,
  key: string,
  record: unknown,
  at: string,
  problems: SnapshotProblem[],
): void {
  if (record === null || typeof record !== "object") return;
  const r = record as Record<string, unknown>;
  if ("id" in r && r.id !== key)
    problems.push({ path: `${at}/0`, message: `is not the record's id (${r.id})` });
  if (UUID_TABLES.has(table) && !isServedUuid(key))
    problems.push({ path: `${at}/1/id`, message: "must be a UUID: the contract serves it as one" });
  for (const [field, value] of Object.entries(r))
    if (TIME_FIELDS.has(field) && typeof value === "number" && !(Math.abs(value) <= MAX_TIME))
      problems.push({ path: `${at}/1/${field}`, message: "is no instant a date-time can state" });
}

/**
 * Every reference resolves, counts within the caps. References are followed in every record, a mistyped
 * one too (each field only where it has the right type): a dangling owner is reported beside a wrong name.
 * A reference to a record that is there but mistyped resolves: that record's own problem is reported.
 */
function referenceProblems(state: State, typed: Map<string, Set<string>>, problems: SnapshotProblem[]): void {
  const entries = (name: string) => state.tables[name] ?? state.extra[name] ?? [];
  const rows = (name: string) =>
    entries(name).flatMap(([key, record], i) =>
      record !== null && typeof record === "object" ? [{ key, r: record as Record<string, unknown>, i }] : [],
    );
  const ids = (name: string) => new Set(entries(name).map(([key]) => key));
  const [users, minds, audiences, teams, keys] = ["users", "minds", "audiences", "teams", "apiKeys"].map(ids);
  const need = (set: Set<string> | undefined, id: unknown, path: string, what: string) => {
    if (typeof id === "string" && !set?.has(id)) problems.push({ path, message: `names no ${what} (${id})` });
  };
  const needAll = (set: Set<string> | undefined, list: unknown, path: string, what: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((id, j) => {
      need(set, id, `${path}/${j}`, what);
    });
  };
  const at = (table: string, i: number, rest: string) => `/state/tables/${table}/${i}/1/${rest}`;
  for (const { r, i } of rows("users")) need(teams, r.teamId, at("users", i, "teamId"), "team");
  for (const { r, i } of rows("teams")) needAll(users, r.memberIds, at("teams", i, "memberIds"), "user");
  for (const { r, i } of rows("apiKeys")) need(users, r.userId, at("apiKeys", i, "userId"), "user");
  entries("apiKeyByHash").forEach(([hash, id], i) => {
    const path = `/state/tables/apiKeyByHash/${i}/1`;
    need(keys, id, path, "API key");
    const key = entries("apiKeys").find(([k]) => k === id)?.[1] as { hash?: unknown } | undefined;
    if (key && key.hash !== hash) problems.push({ path, message: "names a key of another hash" });
  });
  for (const { r, i } of rows("minds")) need(users, r.ownerId, at("minds", i, "ownerId"), "user");
  for (const { r, i } of rows("audiences")) {
    need(users, r.ownerId, at("audiences", i, "ownerId"), "user");
    needAll(minds, r.memberIds, at("audiences", i, "memberIds"), "Mind");
    if (Array.isArray(r.collaborators))
      r.collaborators.forEach((c: { userId?: unknown } | null, j) => {
        need(users, c?.userId, at("audiences", i, `collaborators/${j}/userId`), "user");
      });
  }
  for (const { r, i } of rows("formations")) {
    need(audiences, r.audienceId, at("formations", i, "audienceId"), "Audience");
    need(users, r.creatorId, at("formations", i, "creatorId"), "user");
  }
  for (const { r, i } of rows("studies")) {
    need(users, r.ownerId, at("studies", i, "ownerId"), "user");
    needAll(audiences, r.audienceIds, at("studies", i, "audienceIds"), "Audience");
    needAll(users, r.memberUserIds, at("studies", i, "memberUserIds"), "user");
  }
  capProblems(state, typed, problems);
}

/** Members distinct and within the owner's plan cap; a user's Minds within the Mind cap (typed records). */
function capProblems(state: State, typed: Map<string, Set<string>>, problems: SnapshotProblem[]): void {
  const ok = (name: string) => typed.get(name) ?? new Set<string>();
  const typedRows = <T>(name: "users" | "minds" | "audiences") =>
    (state.tables[name] ?? []).flatMap(([key, r], i) => (ok(name).has(key) ? [{ key, r: r as T, i }] : []));
  const users = new Map(typedRows<UserRecord>("users").map((u) => [u.key, u]));
  const owned = new Map<string, number>();
  for (const { r } of typedRows<MindRecord>("minds")) owned.set(r.ownerId, (owned.get(r.ownerId) ?? 0) + 1);
  for (const [id, n] of owned) {
    const u = users.get(id);
    if (u && n > mindCap(u.r))
      problems.push({
        path: `/state/tables/users/${u.i}/1`,
        message: `owns ${n} Minds, over the cap of ${mindCap(u.r)}`,
      });
  }
  for (const { r, i } of typedRows<AudienceRecord>("audiences")) {
    const path = `/state/tables/audiences/${i}/1/memberIds`;
    if (new Set(r.memberIds).size !== r.memberIds.length)
      problems.push({ path, message: "names a Mind twice" });
    const owner = users.get(r.ownerId);
    if (owner && r.memberIds.length > memberCap(owner.r))
      problems.push({
        path,
        message: `holds ${r.memberIds.length} members, over the owner's cap of ${memberCap(owner.r)}`,
      });
  }
}
