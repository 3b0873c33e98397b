/**
 * The description's rules that one answer shows by itself, beyond its schema: orders of listings, a
 * filter answer that agrees with itself, country codes, the preview's thresholds, readiness arithmetic, the
 * formats a kind offers, a ready Formation's progress. Judged with the kit's own rule code (the checks'
 * exported functions), on the upstream's side.
 */

import {
  countryProblems,
  filterShapeProblems,
  OFFERED_FORMATS,
  readinessDisagreements,
  sortedAsc,
  sortedDesc,
} from "../lib/description/answers.ts";
import { limits } from "../lib/description/contract.ts";
import type { RuleId } from "../lib/description/rules.ts";
import type { Exchange } from "../lib/http/http.ts";
import { type Violation, violation } from "../lib/reporting/report.ts";
import { ruleText } from "../lib/running/context.ts";

type Judged = (ex: Exchange) => [RuleId, string][];

const ofAnswer: Record<string, Judged> = {
  listApiKeys: (ex) =>
    Array.isArray(ex.json) && !sortedDesc(ex.json.map((k: { createdAt?: string }) => String(k.createdAt)))
      ? [["keys/listing-order", "the keys are not listed by createdAt descending"]]
      : [],
  listCollaborators: (ex) => {
    const rows = (ex.json as { data?: { joinedAt?: string }[] } | null)?.data;
    return Array.isArray(rows) && !sortedAsc(rows.map((c) => String(c.joinedAt)))
      ? [["collaborators/managers", "the collaborators are not listed oldest first (joinedAt ascending)"]]
      : [];
  },
  getFilterAttributes: (ex) => {
    const d = (ex.json as { data?: Parameters<typeof filterShapeProblems>[0] & { facets?: [] } } | null)
      ?.data;
    return [
      ...filterShapeProblems(d).map((m): [RuleId, string] => ["filters/selection", m]),
      ...countryProblems(d?.facets).map((m): [RuleId, string] => ["filters/values", m]),
    ];
  },
  previewFormation: (ex) => {
    const d = (ex.json as { data?: { memberCount?: number; softWarn?: boolean; hardCapExceeded?: boolean } })
      ?.data;
    if (typeof d?.memberCount !== "number") return [];
    const out: [RuleId, string][] = [];
    if (d.softWarn !== d.memberCount >= limits().previewSoftWarnFrom)
      out.push(["preview/thresholds", `softWarn is ${d.softWarn} for ${d.memberCount} members`]);
    if (d.hardCapExceeded !== d.memberCount > limits().previewHardCap)
      out.push([
        "preview/thresholds",
        `hardCapExceeded is ${d.hardCapExceeded} for ${d.memberCount} members`,
      ]);
    return out;
  },
  getAudienceProgress: (ex) => {
    const d = (ex.json as { data?: Parameters<typeof readinessDisagreements>[0] } | null)?.data;
    return d ? readinessDisagreements(d).map((m): [RuleId, string] => ["progress/readiness", m]) : [];
  },
  exportAudience: (ex) => {
    let asked: { kind?: string; format?: string } | null = null;
    try {
      asked = JSON.parse(ex.requestBodyText ?? "null");
    } catch {
      return [];
    }
    const kind = (asked?.kind ?? "brief") as keyof typeof OFFERED_FORMATS;
    const offered = OFFERED_FORMATS[kind] as readonly string[] | undefined;
    return offered && asked?.format && !offered.includes(asked.format)
      ? [
          [
            "exports/kinds",
            `a ${kind} as ${asked.format}, which the kind does not offer, was answered ${ex.status}`,
          ],
        ]
      : [];
  },
  getFormation: (ex) => {
    const d = (ex.json as { data?: { status?: string; progress?: unknown } } | null)?.data;
    return d?.status === "ready" && d.progress !== null
      ? [["formations/lifecycle", `a ready Formation has progress ${JSON.stringify(d.progress)}`]]
      : [];
  },
};

/** What a successful answer of the upstream breaks of the rules above. */
export function answerProblems(ex: Exchange): Violation[] {
  const judged = ex.operation ? ofAnswer[ex.operation.operationId] : undefined;
  if (!judged || ex.status < 200 || ex.status >= 300) return [];
  return judged(ex).map(([rule, message]) =>
    violation({ check: "answer/domain", rule: ruleText(rule), ruleId: rule, message, exchange: ex }),
  );
}

/** The rules `answerProblems` judges, for the README's table and its test. */
export const ANSWER_RULES: readonly RuleId[] = [
  "keys/listing-order",
  "collaborators/managers",
  "filters/selection",
  "filters/values",
  "preview/thresholds",
  "progress/readiness",
  "exports/kinds",
  "formations/lifecycle",
];
