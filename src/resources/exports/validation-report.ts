/**
 * The validation report as a document: every scored validation with the overall score, each KPI with its
 * 95% interval, per-question answer shares, the composition check and provenance.
 */

import type { ValidationRecord } from "../../core/world/state.ts";
import type { FilterAttributeKey, FilterAttributes } from "../../generators/index.ts";
import { baselineDistributions, FILTER_ATTRIBUTE_KEYS } from "../../generators/index.ts";
import type { Block, Cell, DocumentInput, ExportDocument, Section } from "./document.ts";
import {
  ATTRIBUTE_LABELS,
  columns,
  dimensionLabel,
  distance,
  fact,
  formatTime,
  GENERATOR,
  hash32,
  roundShares,
} from "./document.ts";
import {
  audienceFacts,
  groundingSourcesTable,
  groundingSummary,
  scoredValidations,
  sourceBundleBlocks,
} from "./sections.ts";

/** A question the validation asked: a grounding chart, or (without grounding) a member baseline. */
export interface Question {
  id: string;
  question: string;
  reference: string;
  labels: string[];
  shares: number[];
}

export function questionsOf(input: DocumentInput): Question[] {
  const charts = input.audience.grounding?.charts ?? [];
  if (charts.length > 0) {
    return charts.map((c) => ({
      id: c.id,
      question: c.question,
      reference: "Grounding",
      labels: c.data.map((d) => d.label),
      shares: c.data.map((d) => d.share),
    }));
  }
  return baselineDistributions(input.members)
    .filter((b) => b.distribution.length > 0)
    .map((b) => ({
      id: b.dimension,
      question: `${ATTRIBUTE_LABELS[b.dimension]}?`,
      reference: "Member baseline",
      labels: b.distribution.map((d) => d.value),
      shares: roundShares(b.distribution.map((d) => d.share)),
    }));
}

/**
 * The panel's answer shares for one question of one validation. The simulator runs no respondents: each
 * reference share is moved by a stable, hash-drawn factor whose reach grows as the validation's mean KPI
 * falls, so a better-scored validation agrees more closely with its reference.
 */
export function panelShares(v: ValidationRecord, q: Question): number[] {
  const mean = v.kpis.length > 0 ? v.kpis.reduce((s, k) => s + k.value, 0) / v.kpis.length : (v.score ?? 0.5);
  const reach = Math.min(0.6, Math.max(0.05, 2 * (1 - mean)));
  const weights = q.shares.map((share, i) => {
    const u = hash32(`${v.id}|${q.id}|${q.labels[i] ?? i}`) / 0xffffffff;
    return share * (1 + reach * (2 * u - 1));
  });
  return roundShares(weights);
}

/** Which bucket of a chart a member falls in, from the member's own record; null when it does not say. */
export function memberBucket(
  dimension: string,
  m: { attributes: FilterAttributes; profile: Record<string, unknown> },
  labels: readonly string[],
): string | null {
  let value: string | undefined;
  if ((FILTER_ATTRIBUTE_KEYS as readonly string[]).includes(dimension)) {
    value = m.attributes[dimension as FilterAttributeKey];
  } else if (dimension === "seniority" && typeof m.profile.seniority === "string") {
    value = m.profile.seniority;
  } else if (dimension === "age" && typeof m.profile.age === "number") {
    const age = m.profile.age;
    value = labels.find((l) => {
      const range = /^(\d+)-(\d+)$/.exec(l);
      if (range) return age >= Number(range[1]) && age <= Number(range[2]);
      const open = /^(\d+)\+$/.exec(l);
      return open ? age >= Number(open[1]) : false;
    });
  }
  if (value === undefined) return null;
  if (labels.includes(value)) return value;
  return labels.includes("Other") ? "Other" : null;
}

export const MEASURABLE = new Set<string>([...FILTER_ATTRIBUTE_KEYS, "age", "seniority"]);

export function verdictOf(tvd: number): string {
  if (tvd <= 0.1) return "close";
  if (tvd <= 0.2) return "acceptable";
  return "off target";
}

export function compositionSection(input: DocumentInput): Section {
  const { audience: a, members } = input;
  const charts = a.grounding?.charts ?? [];
  if (charts.length === 0) {
    return {
      title: "Composition check",
      sheet: "Composition",
      blocks: [
        {
          type: "paragraph",
          text: "The Audience has no stored grounding, so its composition cannot be checked against it.",
        },
      ],
    };
  }
  const summary: Cell[][] = [];
  const details: Block[] = [];
  for (const c of charts) {
    const labels = c.data.map((d) => d.label);
    if (!MEASURABLE.has(c.dimension)) {
      summary.push([dimensionLabel(c.dimension), null, null, "not measurable from member records"]);
      continue;
    }
    const counts = labels.map(() => 0);
    let stated = 0;
    for (const m of members) {
      const bucket = memberBucket(c.dimension, m, labels);
      if (bucket === null) continue;
      stated++;
      const i = labels.indexOf(bucket);
      counts[i] = (counts[i] ?? 0) + 1;
    }
    if (stated === 0) {
      summary.push([dimensionLabel(c.dimension), 0, null, "no member states it"]);
      continue;
    }
    const memberShares = counts.map((n) => n / stated);
    const target = c.data.map((d) => d.share);
    const tvd = distance(target, memberShares);
    summary.push([dimensionLabel(c.dimension), stated, tvd, verdictOf(tvd)]);
    details.push({
      type: "table",
      title: `${dimensionLabel(c.dimension)}: ${c.question}`,
      columns: columns("Group", ["Grounding", "percent"], ["Members", "percent"], ["Difference", "points"]),
      rows: labels.map((label, i) => [
        label,
        target[i] ?? 0,
        memberShares[i] ?? 0,
        (memberShares[i] ?? 0) - (target[i] ?? 0),
      ]),
      bars: [1, 2],
      caption: `${stated} of ${members.length} members state this; total variation distance ${tvd.toFixed(3)} (${verdictOf(tvd)}).`,
    });
  }
  return {
    title: "Composition check",
    sheet: "Composition",
    blocks: [
      {
        type: "paragraph",
        text:
          "Members are compared with the stored grounding on every charted dimension their own records state. " +
          "The distance is the total variation distance between the two distributions: up to 0.100 is close, " +
          "up to 0.200 acceptable, above that off target.",
      },
      {
        type: "table",
        title: "Summary",
        columns: columns("Dimension", ["Members stating it", "integer"], ["Distance", "decimal"], "Verdict"),
        rows: summary,
      },
      ...details,
    ],
  };
}

export function validationReportDocument(input: DocumentInput): ExportDocument {
  const { audience: a, members } = input;
  const validations = scoredValidations(a);
  const label = (i: number) => `V${i + 1}`;
  const latest = validations[validations.length - 1];

  const summary: Section = {
    title: "Summary",
    sheet: "Summary",
    blocks: [
      {
        type: "facts",
        items: [
          ...audienceFacts(a, members),
          fact("Scored validations", validations.length, "integer"),
          fact("Latest overall score", latest?.score ?? null, "decimal"),
          fact("Latest validation", latest ? formatTime(latest.createdAt) : null),
          fact("Generated", formatTime(input.generatedAt)),
        ],
      },
      {
        type: "table",
        title: "Scored validations",
        columns: columns("Validation", "ID", "Scored at", ["Overall score", "decimal"], ["KPIs", "integer"]),
        rows: validations.map((v, i) => [label(i), v.id, formatTime(v.createdAt), v.score, v.kpis.length]),
      },
    ],
  };

  const calculation = calculationSection(validations, label);

  const kpiRows: Cell[][] = [];
  validations.forEach((v, i) => {
    for (const k of v.kpis) kpiRows.push([label(i), k.name, k.value, k.low, k.high, k.high - k.low]);
  });
  const kpis: Section = {
    title: "KPIs with 95% intervals",
    sheet: "KPIs",
    blocks: [
      {
        type: "table",
        columns: columns(
          "Validation",
          "KPI",
          ["Value", "decimal"],
          ["95% low", "decimal"],
          ["95% high", "decimal"],
          ["Interval width", "decimal"],
        ),
        rows: kpiRows,
        caption: "Intervals are 95% confidence intervals as recorded with each validation.",
      },
    ],
  };

  const answers = answersSection(input, validations, label);

  const provenance: Section = {
    title: "Provenance",
    sheet: "Provenance",
    blocks: [
      {
        type: "facts",
        items: [
          fact("Audience ID", a.id),
          fact("Audience last updated", formatTime(a.updatedAt)),
          fact("Members at generation", members.length, "integer"),
          fact("Validations included", validations.map((v) => v.id).join(", ")),
          fact("Grounding", groundingSummary(a)),
          fact("Generated", formatTime(input.generatedAt)),
          fact("Generated by", GENERATOR),
        ],
      },
      {
        type: "paragraph",
        text:
          "Scores and KPIs are the values stored with each validation. Panel answer shares are derived " +
          "deterministically from the reference shares and the validation's KPIs; the composition check reads " +
          "the members' own records.",
      },
      ...((a.grounding?.sources.length ?? 0) > 0
        ? [groundingSourcesTable(a)]
        : [{ type: "paragraph", text: "No grounding sources recorded." } as Block]),
      ...sourceBundleBlocks(a.sources),
    ],
  };

  return {
    kind: "validation_report",
    title: `${a.name}: validation report`,
    subtitle: "Validation report",
    audienceId: a.id,
    audienceName: a.name,
    generatedAt: input.generatedAt,
    sections: [summary, calculation, kpis, answers, compositionSection(input), provenance],
  };
}

type Scored = ReturnType<typeof scoredValidations>;

/** How each overall score adds up: equal KPI weights, then the calibration adjustment stored with it. */
function calculationSection(validations: Scored, label: (i: number) => string): Section {
  const calcBlocks: Block[] = [
    {
      type: "paragraph",
      text:
        "Each KPI carries an equal weight. The overall score is the weighted KPI mean plus the calibration " +
        "adjustment recorded with the validation, so the rows below add up to the stored overall score.",
    },
  ];
  validations.forEach((v, i) => {
    const n = v.kpis.length;
    const weight = n > 0 ? 1 / n : 0;
    const mean = n > 0 ? v.kpis.reduce((s, k) => s + k.value * weight, 0) : 0;
    const score = v.score ?? 0;
    calcBlocks.push({
      type: "table",
      title: `${label(i)} (${formatTime(v.createdAt)}): overall score ${score.toFixed(3)}`,
      columns: columns("Component", ["Value", "decimal"], ["Weight", "decimal"], ["Contribution", "decimal"]),
      rows: [
        ...v.kpis.map((k): Cell[] => [k.name, k.value, weight, k.value * weight]),
        ["Weighted KPI mean", null, n > 0 ? 1 : 0, mean],
        ["Calibration adjustment", null, null, score - mean],
        ["Overall score", null, null, score],
      ],
    });
  });
  return {
    title: "Overall score calculation",
    sheet: "Score calculation",
    blocks: calcBlocks,
  };
}

/** Per question, the panel's answer shares beside the reference's, and how far they agree. */
function answersSection(input: DocumentInput, validations: Scored, label: (i: number) => string): Section {
  const questions = questionsOf(input);
  const answerBlocks: Block[] = [
    {
      type: "paragraph",
      text:
        questions.length === 0
          ? "No questions could be derived: the Audience has neither grounding nor member attributes."
          : `Per question, the panel's answer shares beside the ${questions[0]?.reference.toLowerCase()} shares. ` +
            "Agreement is one minus the total variation distance between the two.",
    },
  ];
  validations.forEach((v, i) => {
    for (const q of questions) {
      const panel = panelShares(v, q);
      const agreement = 1 - distance(q.shares, panel);
      answerBlocks.push({
        type: "table",
        title: `${label(i)}: ${q.question}`,
        columns: columns("Answer", [q.reference, "percent"], ["Panel", "percent"], ["Difference", "points"]),
        rows: q.labels.map((l, j) => [
          l,
          q.shares[j] ?? 0,
          panel[j] ?? 0,
          (panel[j] ?? 0) - (q.shares[j] ?? 0),
        ]),
        bars: [1, 2],
        caption: `Agreement ${(agreement * 100).toFixed(1)}%.`,
      });
    }
  });
  return {
    title: "Answer shares by question",
    sheet: "Answer shares",
    blocks: answerBlocks,
  };
}
