/**
 * Formation previews, case by case: by every account (404 where it may not see), with `priorHypothesis`
 * null, absent, valid and malformed, `userInput` at and past its bound, every `Accept` the description names
 * (quality weights, wildcards, media parameters, none, nothing acceptable), and the thresholds of the member
 * count it reports.
 */

import { streamProblems } from "../lib/description/answers.ts";
import type { Role } from "../lib/http/target.ts";
import { hypothesis } from "../lib/running/helpers.ts";
import { type Answer, type Case, type Field, is, ok, onAud, refused } from "./case.ts";
import { EVERYONE } from "./cast.ts";
import { sg, withSubgroups } from "./formations.ts";
import { viewerRead } from "./viewers.ts";

// ---- preview ----

const JSON_ACCEPT = { accept: "application/json" };

/** "Returned proposals satisfy the creation input rules": 2 to 15 subgroups, unique ids and labels, none reserved. */
const CREATABLE: Field = {
  holds: (v) => {
    const h = v as {
      intent?: unknown;
      subgroups?: { id?: unknown; label?: unknown; definition?: unknown }[];
    };
    const sgs = Array.isArray(h?.subgroups) ? h.subgroups : [];
    const ids = sgs.map((g) => String(g.id ?? "").trim());
    const labels = sgs.map((g) => String(g.label ?? "").trim());
    const filled = (x: unknown) => typeof x === "string" && x.trim() !== "";
    return (
      filled(h?.intent) &&
      sgs.length >= 2 &&
      sgs.length <= 15 &&
      sgs.every((g) => filled(g.id) && filled(g.label) && filled(g.definition)) &&
      new Set(ids).size === ids.length &&
      new Set(labels).size === labels.length &&
      !ids.some((id) => ["unanswered", "__unanswered", "__other"].includes(id))
    );
  },
  says: "is no hypothesis the creation rules take (2 to 15 subgroups, unique non-empty ids and labels, no reserved id)",
  breaks: (v) => ({
    ...(v as object),
    subgroups: [{ id: "__other", label: "Other", definition: "Everyone else" }],
  }),
};

/** The NDJSON stream: one JSON object a line, meta, status, subgroups (or error), done last. */
const STREAM: Field = {
  holds: (v) => typeof v === "string" && streamProblems(v).problems.length === 0,
  says: "is not the stream of events the description orders (meta, status, subgroups or error, done last)",
  breaks: (v) =>
    typeof v === "string"
      ? v
          .split("\n")
          .filter((l) => !l.includes('"done"'))
          .join("\n")
      : "",
};

const preview = (role: Role, handle: string): Case =>
  viewerRead({
    op: "previewFormation",
    role,
    handle,
    rule: "formations/visibility",
    seen: "a proposal",
    answer: [ok(200, { success: is(true), "data.phase": is("hypothesizing"), "data.hypothesis": CREATABLE })],
    more: { json: {}, headers: JSON_ACCEPT },
  });

function previewAs(
  what: string,
  body: unknown,
  headers: Record<string, string>,
  expect: Answer[],
  handle = "main",
): Case {
  return {
    id: `previewFormation owner on ${handle}: ${what}`,
    rule:
      expect[0]?.status === 406 || expect[0]?.contentType
        ? "preview/stream"
        : expect[0]?.status === 400
          ? "input/invalid-400"
          : "preview/thresholds",
    op: "previewFormation",
    as: handle === "main" ? "owner" : "publisher",
    request: onAud(handle, { json: body, headers }),
    expect,
  };
}

/** main's memberCount against its thresholds, whatever its size. */
const thresholdsOfMain = {
  "data.softWarn": {
    holds: (v: unknown, body: unknown) =>
      v === ((body as { data?: { memberCount?: number } })?.data?.memberCount ?? 0) >= 50,
    says: "is not whether memberCount is 50 or more",
    breaks: (v: unknown) => !v,
  },
  "data.hardCapExceeded": {
    holds: (v: unknown, body: unknown) =>
      v === ((body as { data?: { memberCount?: number } })?.data?.memberCount ?? 0) > 1000,
    says: "is not whether memberCount is above 1000",
    breaks: (v: unknown) => !v,
  },
} as const;

const PREVIEWS: Case[] = [
  ...EVERYONE.map((r) => preview(r, "main")),
  preview("outsider", "private"),
  previewAs("priorHypothesis null", { priorHypothesis: null }, JSON_ACCEPT, [ok(200, { success: is(true) })]),
  previewAs("a valid priorHypothesis", { priorHypothesis: hypothesis(3) }, JSON_ACCEPT, [
    ok(200, { success: is(true) }),
  ]),
  previewAs("a malformed priorHypothesis", { priorHypothesis: hypothesis(1) }, JSON_ACCEPT, [refused(400)]),
  previewAs(
    "a priorHypothesis with a reserved id",
    { priorHypothesis: withSubgroups([sg("a"), sg("__other")]).hypothesis },
    JSON_ACCEPT,
    [refused(400)],
  ),
  previewAs("userInput of 2000 characters", { userInput: "u".repeat(2000) }, JSON_ACCEPT, [ok(200)]),
  previewAs(
    "userInput of 2000 characters after trimming",
    { userInput: `  ${"u".repeat(2000)}  ` },
    JSON_ACCEPT,
    [ok(200)],
  ),
  previewAs("userInput of 2001 characters", { userInput: "u".repeat(2001) }, JSON_ACCEPT, [refused(400)]),
  previewAs("userInput that is not a string", { userInput: 5 }, JSON_ACCEPT, [refused(400)]),
  previewAs("Accept: application/x-ndjson streams", {}, { accept: "application/x-ndjson" }, [
    { status: 200, contentType: "application/x-ndjson", fields: { "": STREAM } },
  ]),
  previewAs("no Accept streams", {}, {}, [{ status: 200, contentType: "application/x-ndjson" }]),
  previewAs("Accept: */* streams", {}, { accept: "*/*" }, [
    { status: 200, contentType: "application/x-ndjson" },
  ]),
  previewAs("JSON preferred by quality", {}, { accept: "application/x-ndjson;q=0.5, application/json" }, [
    { status: 200, contentType: "application/json" },
  ]),
  previewAs(
    "the stream preferred by quality",
    {},
    { accept: "application/json;q=0.2, application/x-ndjson;q=0.9" },
    [{ status: 200, contentType: "application/x-ndjson" }],
  ),
  previewAs("JSON with media parameters", {}, { accept: "application/json; charset=utf-8" }, [
    { status: 200, contentType: "application/json" },
  ]),
  previewAs("application/* takes either", {}, { accept: "application/*" }, [
    { status: 200, contentType: "application/x-ndjson" },
    { status: 200, contentType: "application/json" },
  ]),
  previewAs("nothing acceptable: 406", {}, { accept: "text/html" }, [refused(406)]),
  previewAs("JSON refused by q=0: 406", {}, { accept: "application/json;q=0, application/x-ndjson;q=0" }, [
    refused(406),
  ]),
  previewAs("main's size: its thresholds", {}, JSON_ACCEPT, [ok(200, thresholdsOfMain)]),
  previewAs(
    "over 1000 members: both thresholds",
    {},
    JSON_ACCEPT,
    [ok(200, { "data.softWarn": is(true), "data.hardCapExceeded": is(true) })],
    "large",
  ),
];

export const PREVIEW_CASES: Case[] = PREVIEWS;
