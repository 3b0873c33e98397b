/**
 * The documents behind Audience exports (description, "Audiences: exports"): an Audience brief and a
 * validation report, built from the Audience as plain data, then rendered as Markdown, PDF, DOCX, PPTX or
 * XLSX.
 *
 * Building is synchronous and runtime-free: `buildExportDocument` turns an Audience into an
 * `ExportDocument` (sections of headings, paragraphs, facts and typed tables), a JSON value a job can keep.
 * Rendering is asynchronous: each binary renderer loads its library with a dynamic `import()`, so neither
 * the simulator's start-up nor a browser bundle pays for pdf-lib, docx, pptxgenjs, exceljs or jszip until
 * an export is made. The same document always renders to the same bytes: creation dates come from the
 * document's virtual time, ZIP entries are re-stamped with it, and nothing random is drawn.
 *
 * Exports are shared by every viewer of the Audience, so they never carry uploaded-file addresses (the
 * description redacts those for public viewers); files are listed by name only.
 */
import {
  baselineDistributions,
  type Chart,
  type ChartDatum,
  FILTER_ATTRIBUTE_KEYS,
  type FilterAttributeKey,
  type FilterAttributes,
  isUploadedFileUrl,
  type SourceBundle,
  type StandardDimension,
} from "../../fixtures/index.ts";
import type { AudienceRecord, ValidationRecord } from "../core/state.ts";

// ------------------------------------------------------------------------------------ kinds, formats

export type ExportKind = "brief" | "validation_report";
export type ExportFormat = "pdf" | "md" | "docx" | "pptx" | "xlsx";

export const EXPORT_KINDS: readonly ExportKind[] = ["brief", "validation_report"];

/** What each kind offers (description: brief pdf, md, docx, pptx; validation report pdf, md, docx, xlsx). */
export const FORMATS_BY_KIND: Readonly<Record<ExportKind, readonly ExportFormat[]>> = {
  brief: ["pdf", "md", "docx", "pptx"],
  validation_report: ["pdf", "md", "docx", "xlsx"],
};

export const CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  pdf: "application/pdf",
  md: "text/markdown; charset=utf-8",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** `markdown` is accepted as `md`; anything else unknown is null. */
export function canonicalFormat(format: string): ExportFormat | null {
  if (format === "markdown") return "md";
  return (["pdf", "md", "docx", "pptx", "xlsx"] as const).find((f) => f === format) ?? null;
}

/** Lower-case ASCII words joined by hyphens; `audience` when nothing is left. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/g, "");
  return slug === "" ? "audience" : slug;
}

export function exportFileName(audienceName: string, kind: ExportKind, format: ExportFormat): string {
  return `${slugify(audienceName)}-${kind}.${format}`;
}

// ------------------------------------------------------------------------------------ the document model

export type Cell = string | number | null;
/** How a number is shown: shares as percentages, scores as decimals, differences in percentage points. */
export type CellFormat = "text" | "integer" | "percent" | "decimal" | "points";

export interface Column {
  header: string;
  format: CellFormat;
}

export interface TableBlock {
  type: "table";
  title?: string;
  columns: Column[];
  rows: Cell[][];
  /**
   * Columns of shares (0..1) that graphical formats also draw as bars: one column, or a reference and a
   * comparison drawn side by side.
   */
  bars?: number[];
  caption?: string;
}

export interface Fact {
  label: string;
  value: Cell;
  format: CellFormat;
}

export type Block =
  | { type: "subheading"; text: string }
  | { type: "paragraph"; text: string }
  | { type: "bullets"; items: string[] }
  | { type: "facts"; items: Fact[] }
  | TableBlock;

export interface Section {
  title: string;
  /** Worksheet name for XLSX: at most 31 characters. */
  sheet: string;
  blocks: Block[];
}

export interface ExportDocument {
  kind: ExportKind;
  title: string;
  subtitle: string;
  audienceId: string;
  audienceName: string;
  /** Virtual time of generation (epoch ms): the documents' creation date. */
  generatedAt: number;
  sections: Section[];
}

/** What a document is built from: the Audience, its members' facts, and the time. */
export interface DocumentInput {
  audience: AudienceRecord;
  members: readonly { attributes: FilterAttributes; profile: Record<string, unknown> }[];
  generatedAt: number;
}

export const GENERATOR = "Audience Research Service (simulator)";

// ------------------------------------------------------------------------------------ formatting

const DASH = "\u2014";

export function formatCell(value: Cell, format: CellFormat): string {
  if (value === null) return DASH;
  if (typeof value === "string") return value;
  switch (format) {
    case "percent":
      return `${(value * 100).toFixed(1)}%`;
    case "points": {
      const pp = value * 100;
      const rounded = Math.abs(pp) < 0.05 ? 0 : pp;
      return `${rounded > 0 ? "+" : rounded < 0 ? "\u2212" : "\u00b1"}${Math.abs(rounded).toFixed(1)} pp`;
    }
    case "decimal":
      return value.toFixed(3);
    case "integer":
      return Math.round(value).toLocaleString("en-US");
    default:
      return String(value);
  }
}

const isNumeric = (format: CellFormat): boolean => format !== "text";

/** `2026-11-21 12:00 UTC`: timestamps in documents are read by people. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const ATTRIBUTE_LABELS: Readonly<Record<FilterAttributeKey, string>> = {
  perspective: "Perspective",
  industry: "Industry",
  role: "Role",
  country: "Country",
  companySize: "Company size",
  technology: "Technology",
  businessModel: "Business model",
};

const DIMENSION_LABELS: Readonly<Record<StandardDimension, string>> = {
  age: "Age",
  gender: "Gender",
  seniority: "Seniority",
  role: "Role",
  industry: "Industry",
  country: "Country",
  companySize: "Company size",
  technologyAdoption: "Technology adoption",
  budgetAuthority: "Budget authority",
  businessModel: "Business model",
};

function dimensionLabel(dimension: string): string {
  return (DIMENSION_LABELS as Record<string, string>)[dimension] ?? dimension;
}

/** A grounding source as exports show it: uploaded files keep their title but never their address. */
function sourceAddress(url: string): string {
  return isUploadedFileUrl(url) ? "uploaded file, address withheld" : url;
}

/** A stable 32-bit FNV-1a hash: the simulator's only source of variation in derived figures. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Rounds shares to whole thousandths that add up to exactly 1000 (largest remainder). */
function roundShares(weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + w, 0);
  if (total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w / total) * 1000);
  const floors = exact.map(Math.floor);
  let left = 1000 - floors.reduce((s, f) => s + f, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floors[i] = (floors[i] ?? 0) + 1;
    left--;
  }
  return floors.map((f) => f / 1000);
}

/** Total variation distance between two distributions over the same labels. */
function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return Math.round((sum / 2) * 1000) / 1000;
}

// ------------------------------------------------------------------------------------ shared pieces

function scoredValidations(audience: AudienceRecord): ValidationRecord[] {
  return audience.validations
    .filter((v) => v.status === "scored" && v.score !== null)
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function hasScoredValidation(audience: AudienceRecord): boolean {
  return scoredValidations(audience).length > 0;
}

function visibilityOf(a: AudienceRecord): string {
  const parts = [a.isPublic ? "Public (listed in the marketplace)" : "Private"];
  if (a.isSharedWithTeam) parts.push("shared with the owner's team");
  if (a.isLinkSharingEnabled) parts.push("link sharing on");
  return parts.join(", ");
}

function groundingSummary(a: AudienceRecord): string {
  const g = a.grounding;
  if (!g || g.charts.length === 0) return "No stored grounding";
  return `${g.charts.length} chart${g.charts.length === 1 ? "" : "s"} from ${g.sources.length} source${g.sources.length === 1 ? "" : "s"}`;
}

function chartSourceLine(a: AudienceRecord, chart: Chart): string {
  const source = a.grounding?.sources[chart.sourceIndex];
  return source ? `Source: ${source.title} (${sourceAddress(source.url)}).` : "Source: not recorded.";
}

function groundingSourcesTable(a: AudienceRecord): TableBlock {
  return {
    type: "table",
    title: "Grounding sources",
    columns: [
      { header: "#", format: "integer" },
      { header: "Title", format: "text" },
      { header: "Address", format: "text" },
    ],
    rows: (a.grounding?.sources ?? []).map((s, i) => [i + 1, s.title, sourceAddress(s.url)]),
  };
}

function sourceBundleBlocks(sources: SourceBundle): Block[] {
  const blocks: Block[] = [{ type: "subheading", text: "Keywords" }];
  blocks.push(
    sources.keywords.length > 0
      ? { type: "paragraph", text: sources.keywords.join(", ") }
      : { type: "paragraph", text: "No keywords recorded." },
  );
  blocks.push({ type: "subheading", text: "Links" });
  blocks.push(
    sources.links.length > 0
      ? {
          type: "table",
          columns: [
            { header: "Title", format: "text" },
            { header: "Address", format: "text" },
          ],
          rows: sources.links.map((l) => [l.title, l.url]),
        }
      : { type: "paragraph", text: "No links recorded." },
  );
  blocks.push({ type: "subheading", text: "Files" });
  blocks.push(
    sources.files.length > 0
      ? {
          type: "table",
          columns: [
            { header: "File", format: "text" },
            { header: "Type", format: "text" },
            { header: "Size", format: "text" },
          ],
          rows: sources.files.map((f) => [f.name, f.contentType, formatBytes(f.sizeBytes)]),
          caption: "File contents and uploaded-file addresses are not included in exports.",
        }
      : { type: "paragraph", text: "No files attached." },
  );
  return blocks;
}

// ------------------------------------------------------------------------------------ the brief

function briefDocument(input: DocumentInput): ExportDocument {
  const { audience: a, members } = input;
  const baselines = baselineDistributions(members);
  const attributed = members.filter((m) => Object.keys(m.attributes).length > 0).length;
  const charts = a.grounding?.charts ?? [];

  const overview: Section = {
    title: "Overview",
    sheet: "Overview",
    blocks: [
      {
        type: "facts",
        items: [
          { label: "Audience", value: a.name, format: "text" },
          { label: "Audience ID", value: a.id, format: "text" },
          { label: "Members", value: members.length, format: "integer" },
          { label: "Members with filter attributes", value: attributed, format: "integer" },
          { label: "Created", value: formatTime(a.createdAt), format: "text" },
          { label: "Last updated", value: formatTime(a.updatedAt), format: "text" },
          { label: "Visibility", value: visibilityOf(a), format: "text" },
          { label: "Grounding", value: groundingSummary(a), format: "text" },
          {
            label: "Research",
            value: a.research
              ? `${a.research.phase}${a.research.stage ? ` (${a.research.stage})` : ""}`
              : "researched",
            format: "text",
          },
          { label: "Generated", value: formatTime(input.generatedAt), format: "text" },
        ],
      },
    ],
  };

  const briefParagraphs = a.sources.brief
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const brief: Section = {
    title: "Audience brief",
    sheet: "Brief",
    blocks: [
      ...(briefParagraphs.length > 0
        ? briefParagraphs.map((text): Block => ({ type: "paragraph", text }))
        : [{ type: "paragraph", text: "No brief recorded." } as Block]),
      ...(a.sources.adjustments.length > 0
        ? [
            { type: "subheading", text: "Adjustments" } as Block,
            { type: "bullets", items: [...a.sources.adjustments] } as Block,
          ]
        : []),
    ],
  };

  const sourceSection: Section = {
    title: "Keywords, links and files",
    sheet: "Sources bundle",
    blocks: sourceBundleBlocks(a.sources),
  };

  const memberBlocks: Block[] = [
    {
      type: "paragraph",
      text:
        members.length === 0
          ? "The Audience has no members."
          : `The Audience has ${members.length.toLocaleString("en-US")} member${members.length === 1 ? "" : "s"}. ` +
            "Each distribution counts the members' own filter attributes; shares are of the members that state " +
            "a value, and members without one are counted as not stated.",
    },
  ];
  if (members.length > 0) {
    for (const b of baselines) {
      memberBlocks.push({
        type: "table",
        title: ATTRIBUTE_LABELS[b.dimension],
        columns: [
          { header: "Value", format: "text" },
          { header: "Members", format: "integer" },
          { header: "Share", format: "percent" },
        ],
        rows: [
          ...b.distribution.map((d): Cell[] => [d.value, d.count, d.share]),
          ...(b.missing > 0 ? [["Not stated", b.missing, null] as Cell[]] : []),
        ],
        bars: [2],
      });
    }
  }
  const membersSection: Section = { title: "Members", sheet: "Members", blocks: memberBlocks };

  const groundingBlocks: Block[] =
    charts.length === 0
      ? [{ type: "paragraph", text: "This Audience has no stored grounding." }]
      : [
          {
            type: "paragraph",
            text: `${charts.length} evidence-based chart${charts.length === 1 ? "" : "s"} ground this Audience. Shares are of the population the source describes.`,
          },
          ...charts.map(
            (c): TableBlock => ({
              type: "table",
              title: `${c.question} (${dimensionLabel(c.dimension)})`,
              columns: [
                { header: "Answer", format: "text" },
                { header: "Share", format: "percent" },
              ],
              rows: c.data.map((d) => [d.label, d.share]),
              bars: [1],
              caption: `${c.evidence} ${chartSourceLine(a, c)}`,
            }),
          ),
        ];
  const groundingSection: Section = { title: "Grounding", sheet: "Grounding", blocks: groundingBlocks };

  const coverageBlocks: Block[] = [];
  if (!a.coverage || a.coverage.length === 0) {
    coverageBlocks.push({ type: "paragraph", text: "Coverage has not been measured for this Audience." });
  } else {
    const counts = { sourced: 0, proxy: 0, assumed: 0, missing: 0 };
    for (const d of a.coverage) counts[d.status]++;
    coverageBlocks.push({
      type: "paragraph",
      text: `Of ${a.coverage.length} standard dimensions, ${counts.sourced} are sourced, ${counts.proxy} use a proxy, ${counts.assumed} are assumed and ${counts.missing} are missing.`,
    });
    coverageBlocks.push({
      type: "table",
      columns: [
        { header: "Dimension", format: "text" },
        { header: "Status", format: "text" },
        { header: "Largest group", format: "text" },
        { header: "Share", format: "percent" },
      ],
      rows: a.coverage.map((d) => {
        const data = Array.isArray(d.distribution) ? (d.distribution as ChartDatum[]) : [];
        let top: ChartDatum | undefined;
        for (const datum of data) if (!top || datum.share > top.share) top = datum;
        return [dimensionLabel(d.dimension), d.status, top?.label ?? null, top?.share ?? null];
      }),
    });
  }
  const coverageSection: Section = { title: "Coverage", sheet: "Coverage", blocks: coverageBlocks };

  const sourcesSection: Section = {
    title: "Sources",
    sheet: "Sources",
    blocks:
      (a.grounding?.sources.length ?? 0) > 0
        ? [groundingSourcesTable(a)]
        : [{ type: "paragraph", text: "No grounding sources recorded." }],
  };

  return {
    kind: "brief",
    title: a.name,
    subtitle: "Audience brief",
    audienceId: a.id,
    audienceName: a.name,
    generatedAt: input.generatedAt,
    sections: [
      overview,
      brief,
      sourceSection,
      membersSection,
      groundingSection,
      coverageSection,
      sourcesSection,
    ],
  };
}

// ------------------------------------------------------------------------------------ validation report

/** A question the validation asked: a grounding chart, or (without grounding) a member baseline. */
interface Question {
  id: string;
  question: string;
  reference: string;
  labels: string[];
  shares: number[];
}

function questionsOf(input: DocumentInput): Question[] {
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
function panelShares(v: ValidationRecord, q: Question): number[] {
  const mean = v.kpis.length > 0 ? v.kpis.reduce((s, k) => s + k.value, 0) / v.kpis.length : (v.score ?? 0.5);
  const reach = Math.min(0.6, Math.max(0.05, 2 * (1 - mean)));
  const weights = q.shares.map((share, i) => {
    const u = hash32(`${v.id}|${q.id}|${q.labels[i] ?? i}`) / 0xffffffff;
    return share * (1 + reach * (2 * u - 1));
  });
  return roundShares(weights);
}

/** Which bucket of a chart a member falls in, from the member's own record; null when it does not say. */
function memberBucket(
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

const MEASURABLE = new Set<string>([...FILTER_ATTRIBUTE_KEYS, "age", "seniority"]);

function verdictOf(tvd: number): string {
  if (tvd <= 0.1) return "close";
  if (tvd <= 0.2) return "acceptable";
  return "off target";
}

function compositionSection(input: DocumentInput): Section {
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
      columns: [
        { header: "Group", format: "text" },
        { header: "Grounding", format: "percent" },
        { header: "Members", format: "percent" },
        { header: "Difference", format: "points" },
      ],
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
        columns: [
          { header: "Dimension", format: "text" },
          { header: "Members stating it", format: "integer" },
          { header: "Distance", format: "decimal" },
          { header: "Verdict", format: "text" },
        ],
        rows: summary,
      },
      ...details,
    ],
  };
}

function validationReportDocument(input: DocumentInput): ExportDocument {
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
          { label: "Audience", value: a.name, format: "text" },
          { label: "Audience ID", value: a.id, format: "text" },
          { label: "Members", value: members.length, format: "integer" },
          { label: "Scored validations", value: validations.length, format: "integer" },
          { label: "Latest overall score", value: latest?.score ?? null, format: "decimal" },
          { label: "Latest validation", value: latest ? formatTime(latest.createdAt) : null, format: "text" },
          { label: "Generated", value: formatTime(input.generatedAt), format: "text" },
        ],
      },
      {
        type: "table",
        title: "Scored validations",
        columns: [
          { header: "Validation", format: "text" },
          { header: "ID", format: "text" },
          { header: "Scored at", format: "text" },
          { header: "Overall score", format: "decimal" },
          { header: "KPIs", format: "integer" },
        ],
        rows: validations.map((v, i) => [label(i), v.id, formatTime(v.createdAt), v.score, v.kpis.length]),
      },
    ],
  };

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
      columns: [
        { header: "Component", format: "text" },
        { header: "Value", format: "decimal" },
        { header: "Weight", format: "decimal" },
        { header: "Contribution", format: "decimal" },
      ],
      rows: [
        ...v.kpis.map((k): Cell[] => [k.name, k.value, weight, k.value * weight]),
        ["Weighted KPI mean", null, n > 0 ? 1 : 0, mean],
        ["Calibration adjustment", null, null, score - mean],
        ["Overall score", null, null, score],
      ],
    });
  });
  const calculation: Section = {
    title: "Overall score calculation",
    sheet: "Score calculation",
    blocks: calcBlocks,
  };

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
        columns: [
          { header: "Validation", format: "text" },
          { header: "KPI", format: "text" },
          { header: "Value", format: "decimal" },
          { header: "95% low", format: "decimal" },
          { header: "95% high", format: "decimal" },
          { header: "Interval width", format: "decimal" },
        ],
        rows: kpiRows,
        caption: "Intervals are 95% confidence intervals as recorded with each validation.",
      },
    ],
  };

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
        columns: [
          { header: "Answer", format: "text" },
          { header: q.reference, format: "percent" },
          { header: "Panel", format: "percent" },
          { header: "Difference", format: "points" },
        ],
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
  const answers: Section = {
    title: "Answer shares by question",
    sheet: "Answer shares",
    blocks: answerBlocks,
  };

  const provenance: Section = {
    title: "Provenance",
    sheet: "Provenance",
    blocks: [
      {
        type: "facts",
        items: [
          { label: "Audience ID", value: a.id, format: "text" },
          { label: "Audience last updated", value: formatTime(a.updatedAt), format: "text" },
          { label: "Members at generation", value: members.length, format: "integer" },
          { label: "Validations included", value: validations.map((v) => v.id).join(", "), format: "text" },
          { label: "Grounding", value: groundingSummary(a), format: "text" },
          { label: "Generated", value: formatTime(input.generatedAt), format: "text" },
          { label: "Generated by", value: GENERATOR, format: "text" },
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

export function buildExportDocument(kind: ExportKind, input: DocumentInput): ExportDocument {
  return kind === "brief" ? briefDocument(input) : validationReportDocument(input);
}

/** What decides whether a cached artifact is still current: the document's content, its time aside. */
export function documentFingerprint(kind: ExportKind, input: DocumentInput): string {
  const doc = buildExportDocument(kind, { ...input, generatedAt: 0 });
  const text = JSON.stringify(doc);
  return `${hash32(text).toString(16)}-${hash32(`${text.length}:${text}`).toString(16)}-${text.length}`;
}

// ------------------------------------------------------------------------------------ rendering

export async function renderDocument(doc: ExportDocument, format: ExportFormat): Promise<Uint8Array> {
  switch (format) {
    case "md":
      return new TextEncoder().encode(renderMarkdown(doc));
    case "pdf":
      return renderPdf(doc);
    case "docx":
      return renderDocx(doc);
    case "pptx":
      return renderPptx(doc);
    case "xlsx":
      return renderXlsx(doc);
  }
}

// --------------------------------------------------------------------- Markdown

function mdCell(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ");
}

export function renderMarkdown(doc: ExportDocument): string {
  const out: string[] = [
    `# ${doc.title}`,
    "",
    `_${doc.subtitle}. Generated ${formatTime(doc.generatedAt)}._`,
    "",
  ];
  for (const section of doc.sections) {
    out.push(`## ${section.title}`, "");
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          out.push(`### ${block.text}`, "");
          break;
        case "paragraph":
          out.push(block.text, "");
          break;
        case "bullets":
          for (const item of block.items) out.push(`- ${item}`);
          out.push("");
          break;
        case "facts":
          for (const f of block.items) out.push(`- **${f.label}:** ${formatCell(f.value, f.format)}`);
          out.push("");
          break;
        case "table": {
          if (block.title) out.push(`**${block.title}**`, "");
          out.push(`| ${block.columns.map((c) => mdCell(c.header)).join(" | ")} |`);
          out.push(`| ${block.columns.map((c) => (isNumeric(c.format) ? "---:" : "---")).join(" | ")} |`);
          for (const row of block.rows) {
            out.push(
              `| ${block.columns.map((c, i) => mdCell(formatCell(row[i] ?? null, c.format))).join(" | ")} |`,
            );
          }
          out.push("");
          if (block.caption) out.push(`_${block.caption}_`, "");
          break;
        }
      }
    }
  }
  out.push("---", "", `_${GENERATOR}. Audience ${doc.audienceId}._`, "");
  return out.join("\n");
}

// --------------------------------------------------------------------- shared by the binary formats

type ZipInput = Uint8Array | ArrayBuffer;

/**
 * Re-packs an Office file so its bytes depend only on its content: every entry is stamped with the
 * document's time (libraries stamp the wall clock) and the core properties' dates are set to it too.
 */
async function normalizeZip(input: ZipInput, when: number): Promise<Uint8Array> {
  const { default: JSZip } = await import("jszip");
  const source = await JSZip.loadAsync(input);
  const out = new JSZip();
  const date = new Date(when);
  const stamp = new Date(when).toISOString().replace(/\.\d{3}Z$/, "Z");
  const names: string[] = [];
  source.forEach((path) => {
    names.push(path);
  });
  // `[Content_Types].xml` first, as Office itself writes it; the rest in the library's order.
  names.sort((x, y) => Number(y === "[Content_Types].xml") - Number(x === "[Content_Types].xml"));
  for (const name of names) {
    const entry = source.file(name);
    if (!entry) continue;
    let data: Uint8Array | string = await entry.async("uint8array");
    if (name === "docProps/core.xml") {
      data = new TextDecoder()
        .decode(data)
        .replace(/(<dcterms:(created|modified)\b[^>]*>)[^<]*(<\/dcterms:\2>)/g, `$1${stamp}$3`);
    }
    out.file(name, data, { date, createFolders: false });
  }
  return out.generateAsync({
    type: "uint8array",
    compression: "DEFLATE",
    compressionOptions: { level: 6 },
    platform: "DOS",
  });
}

/** A table's column widths in characters, for formats that size columns themselves. */
function columnChars(block: TableBlock, cap: number): number[] {
  return block.columns.map((c, i) => {
    let w = c.header.length;
    for (const row of block.rows) w = Math.max(w, formatCell(row[i] ?? null, c.format).length);
    return Math.min(cap, Math.max(isNumeric(c.format) ? 9 : 8, w + 2));
  });
}

// --------------------------------------------------------------------- PDF (pdf-lib, standard fonts)

type PdfLib = typeof import("pdf-lib");
type PDFFont = import("pdf-lib").PDFFont;
type PDFPage = import("pdf-lib").PDFPage;
type PDFDocument = import("pdf-lib").PDFDocument;

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const FOOTER = 24;

/** Top-down page layout with wrapping, page breaks and tables that repeat their header. */
class PdfLayout {
  page: PDFPage;
  y: number;
  readonly width = A4[0] - 2 * MARGIN;
  private readonly supported: Set<number>;
  readonly ink;
  readonly accent;
  readonly muted;
  readonly headerFill;
  readonly zebra;
  readonly reference;

  constructor(
    lib: PdfLib,
    private readonly doc: PDFDocument,
    readonly fonts: { regular: PDFFont; bold: PDFFont; italic: PDFFont },
  ) {
    this.page = doc.addPage(A4);
    this.y = A4[1] - MARGIN;
    this.supported = new Set(fonts.regular.getCharacterSet());
    this.ink = lib.rgb(0.13, 0.13, 0.15);
    this.accent = lib.rgb(0.12, 0.31, 0.47);
    this.muted = lib.rgb(0.42, 0.42, 0.45);
    this.headerFill = lib.rgb(0.88, 0.91, 0.95);
    this.zebra = lib.rgb(0.965, 0.97, 0.98);
    this.reference = lib.rgb(0.62, 0.72, 0.83);
  }

  /** Text the standard fonts can encode (WinAnsi): accents are dropped where needed, the rest becomes `?`. */
  safe(text: string): string {
    let out = "";
    for (const ch of text.normalize("NFC")) {
      const cp = ch.codePointAt(0) ?? 63;
      if (cp === 9 || cp === 10 || cp === 13) out += " ";
      else if (cp === 0x2212) out += "-";
      else if (this.supported.has(cp)) out += ch;
      else {
        const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
        out += base !== "" && [...base].every((c) => this.supported.has(c.codePointAt(0) ?? 0)) ? base : "?";
      }
    }
    return out;
  }

  wrap(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
    const lines: string[] = [];
    let line = "";
    const fits = (s: string) => font.widthOfTextAtSize(s, size) <= maxWidth;
    for (let word of this.safe(text).split(/ +/)) {
      if (word === "") continue;
      const candidate = line === "" ? word : `${line} ${word}`;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line !== "") lines.push(line);
      line = "";
      while (!fits(word) && word.length > 1) {
        let cut = word.length - 1;
        while (cut > 1 && !fits(word.slice(0, cut))) cut--;
        lines.push(word.slice(0, cut));
        word = word.slice(cut);
      }
      line = word;
    }
    if (line !== "") lines.push(line);
    return lines.length > 0 ? lines : [""];
  }

  newPage(): void {
    this.page = this.doc.addPage(A4);
    this.y = A4[1] - MARGIN;
  }

  /** Starts a new page unless `height` still fits above the footer. */
  ensure(height: number): void {
    if (this.y - height < MARGIN + FOOTER) this.newPage();
  }

  gap(height: number): void {
    this.y -= height;
  }

  text(
    text: string,
    opts: { font?: PDFFont; size?: number; color?: ReturnType<PdfLib["rgb"]>; indent?: number } = {},
  ): void {
    const font = opts.font ?? this.fonts.regular;
    const size = opts.size ?? 10;
    const indent = opts.indent ?? 0;
    const lead = size * 1.38;
    for (const line of this.wrap(text, font, size, this.width - indent)) {
      this.ensure(lead);
      this.page.drawText(line, {
        x: MARGIN + indent,
        y: this.y - size,
        size,
        font,
        color: opts.color ?? this.ink,
      });
      this.y -= lead;
    }
  }

  rule(): void {
    this.page.drawLine({
      start: { x: MARGIN, y: this.y },
      end: { x: MARGIN + this.width, y: this.y },
      thickness: 0.6,
      color: this.accent,
    });
  }

  /** Label and value in two columns, the value wrapped in its own column. */
  facts(items: readonly Fact[]): void {
    const { regular, bold } = this.fonts;
    const size = 10;
    const lead = size * 1.38;
    let labelWidth = 0;
    for (const f of items)
      labelWidth = Math.max(labelWidth, bold.widthOfTextAtSize(this.safe(f.label), size));
    labelWidth = Math.min(Math.ceil(labelWidth) + 12, this.width / 2);
    for (const f of items) {
      const labels = this.wrap(f.label, bold, size, labelWidth - 12);
      const values = this.wrap(formatCell(f.value, f.format), regular, size, this.width - labelWidth);
      const lines = Math.max(labels.length, values.length);
      this.ensure(lines * lead);
      for (let i = 0; i < lines; i++) {
        const label = labels[i];
        const value = values[i];
        if (label)
          this.page.drawText(label, { x: MARGIN, y: this.y - size, size, font: bold, color: this.ink });
        if (value) {
          this.page.drawText(value, {
            x: MARGIN + labelWidth,
            y: this.y - size,
            size,
            font: regular,
            color: this.ink,
          });
        }
        this.y -= lead;
      }
    }
  }

  table(block: TableBlock): void {
    const size = 8.5;
    const pad = 4;
    const lead = size * 1.3;
    const { regular, bold, italic } = this.fonts;
    const bars = block.bars ?? [];
    const barArea = bars.length > 0 ? 110 : 0;
    const texts = block.rows.map((row) => block.columns.map((c, i) => formatCell(row[i] ?? null, c.format)));
    const natural = block.columns.map((c, i) => {
      let w = bold.widthOfTextAtSize(this.safe(c.header), size);
      for (const row of texts) w = Math.max(w, regular.widthOfTextAtSize(this.safe(row[i] ?? ""), size));
      return Math.ceil(w) + 2 * pad;
    });
    const avail = this.width - barArea;
    let widths = natural;
    const total = natural.reduce((s, w) => s + w, 0);
    if (total > avail) {
      const fixed = block.columns.reduce((s, c, i) => s + (isNumeric(c.format) ? (natural[i] ?? 0) : 0), 0);
      const flexible = total - fixed;
      const room = Math.max(avail - fixed, 60);
      widths = natural.map((w, i) =>
        isNumeric(block.columns[i]?.format ?? "text") ? w : Math.max(40, (w / flexible) * room),
      );
    }
    const tableWidth = widths.reduce((s, w) => s + w, 0);
    // Bars share one scale per table, the largest value filling the bar area.
    let maxShare = 0;
    for (const row of block.rows) {
      for (const b of bars) {
        const v = row[b];
        if (typeof v === "number") maxShare = Math.max(maxShare, v);
      }
    }
    const barColors = bars.length > 1 ? [this.reference, this.accent] : [this.accent];

    const layoutRow = (cells: string[], font: PDFFont) => {
      const wrapped = cells.map((t, i) => this.wrap(t, font, size, (widths[i] ?? 40) - 2 * pad));
      return { wrapped, height: Math.max(...wrapped.map((l) => l.length)) * lead + 2 * pad - 2 };
    };
    const drawRow = (
      row: { wrapped: string[][]; height: number },
      font: PDFFont,
      fill: ReturnType<PdfLib["rgb"]> | null,
      values: Cell[] | null,
    ) => {
      const { wrapped, height } = row;
      if (fill) {
        this.page.drawRectangle({
          x: MARGIN,
          y: this.y - height,
          width: tableWidth + barArea,
          height,
          color: fill,
        });
      }
      let x = MARGIN;
      wrapped.forEach((lines, i) => {
        const w = widths[i] ?? 40;
        const right = isNumeric(block.columns[i]?.format ?? "text");
        lines.forEach((line, j) => {
          const lw = font.widthOfTextAtSize(line, size);
          this.page.drawText(line, {
            x: right ? x + w - pad - lw : x + pad,
            y: this.y - pad - size + 1 - j * lead,
            size,
            font,
            color: this.ink,
          });
        });
        x += w;
      });
      if (values && maxShare > 0) {
        const span = barArea - 12;
        const thick = (size - 1) / bars.length;
        bars.forEach((b, k) => {
          const v = values[b];
          if (typeof v !== "number" || v <= 0) return;
          this.page.drawRectangle({
            x: MARGIN + tableWidth + 6,
            y: this.y - pad - size + 0.5 + (bars.length - 1 - k) * thick,
            width: Math.max(0.5, (v / maxShare) * span),
            height: thick - (bars.length > 1 ? 0.5 : 0),
            color: barColors[k] ?? this.accent,
          });
        });
      }
      this.y -= height;
    };

    const header = layoutRow(
      block.columns.map((c) => c.header),
      bold,
    );
    const rows = texts.map((cells) => layoutRow(cells, regular));
    const titleHeight = block.title ? 10 * 1.38 + 2 : 0;
    const bodyHeight = rows.reduce((s, r) => s + r.height, 0);
    const whole = titleHeight + header.height + bodyHeight + 4;
    // A table that fits on one page is kept together; a longer one starts with at least three rows.
    const firstRows = rows.slice(0, 3).reduce((s, r) => s + r.height, 0);
    this.ensure(whole <= A4[1] - 2 * MARGIN - FOOTER ? whole : titleHeight + header.height + firstRows + 4);
    if (block.title) this.text(block.title, { font: bold, size: 10 });
    this.gap(2);
    drawRow(header, bold, this.headerFill, null);
    rows.forEach((row, r) => {
      if (this.y - row.height < MARGIN + FOOTER) {
        this.newPage();
        drawRow(header, bold, this.headerFill, null);
      }
      drawRow(row, regular, r % 2 === 1 ? this.zebra : null, block.rows[r] ?? null);
    });
    this.page.drawLine({
      start: { x: MARGIN, y: this.y },
      end: { x: MARGIN + tableWidth + barArea, y: this.y },
      thickness: 0.5,
      color: this.muted,
    });
    this.gap(4);
    if (bars.length > 1) {
      const legend = `Bars: ${bars.map((b) => block.columns[b]?.header ?? "").join(" (light), ")} (dark).`;
      this.text(legend, { font: italic, size: 8, color: this.muted });
    }
    if (block.caption) this.text(block.caption, { font: italic, size: 8.5, color: this.muted });
    this.gap(8);
  }
}

async function renderPdf(doc: ExportDocument): Promise<Uint8Array> {
  const lib = await import("pdf-lib");
  const pdf = await lib.PDFDocument.create({ updateMetadata: false });
  const when = new Date(doc.generatedAt);
  pdf.setTitle(doc.title);
  pdf.setSubject(doc.subtitle);
  pdf.setAuthor(GENERATOR);
  pdf.setCreator(GENERATOR);
  pdf.setProducer("pdf-lib");
  pdf.setKeywords([doc.kind, doc.audienceId]);
  pdf.setLanguage("en");
  pdf.setCreationDate(when);
  pdf.setModificationDate(when);
  const fonts = {
    regular: await pdf.embedFont(lib.StandardFonts.Helvetica),
    bold: await pdf.embedFont(lib.StandardFonts.HelveticaBold),
    italic: await pdf.embedFont(lib.StandardFonts.HelveticaOblique),
  };
  const l = new PdfLayout(lib, pdf, fonts);

  l.text(doc.title, { font: fonts.bold, size: 20, color: l.accent });
  l.text(doc.subtitle, { size: 12, color: l.muted });
  l.text(`Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}`, { size: 8.5, color: l.muted });
  l.gap(6);
  l.rule();
  l.gap(12);

  for (const section of doc.sections) {
    l.ensure(90);
    l.text(section.title, { font: fonts.bold, size: 14, color: l.accent });
    l.gap(4);
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          l.ensure(60);
          l.gap(2);
          l.text(block.text, { font: fonts.bold, size: 11 });
          l.gap(2);
          break;
        case "paragraph":
          l.text(block.text);
          l.gap(6);
          break;
        case "bullets":
          for (const item of block.items) l.text(`\u2022 ${item}`, { indent: 8 });
          l.gap(6);
          break;
        case "facts":
          l.facts(block.items);
          l.gap(6);
          break;
        case "table":
          l.table(block);
          break;
      }
    }
    l.gap(8);
  }

  const pages = pdf.getPages();
  pages.forEach((page, i) => {
    const footer = `Page ${i + 1} of ${pages.length}`;
    const size = 8;
    const title = l.safe(doc.title);
    const room = A4[0] - 2 * MARGIN - fonts.regular.widthOfTextAtSize(footer, size) - 24;
    let left = `${title} \u00b7 ${doc.subtitle}`;
    while (left.length > 4 && fonts.regular.widthOfTextAtSize(left, size) > room)
      left = `${left.slice(0, -2)}`;
    page.drawText(left, { x: MARGIN, y: MARGIN / 2, size, font: fonts.regular, color: l.muted });
    page.drawText(footer, {
      x: A4[0] - MARGIN - fonts.regular.widthOfTextAtSize(footer, size),
      y: MARGIN / 2,
      size,
      font: fonts.regular,
      color: l.muted,
    });
  });
  return pdf.save();
}

// --------------------------------------------------------------------- DOCX (docx)

async function renderDocx(doc: ExportDocument): Promise<Uint8Array> {
  const d = await import("docx");
  const TEXT_WIDTH = 9026; // A4 with 1-inch margins, in twentieths of a point
  const children: (InstanceType<typeof d.Paragraph> | InstanceType<typeof d.Table>)[] = [
    new d.Paragraph({ text: doc.title, heading: d.HeadingLevel.TITLE }),
    new d.Paragraph({
      children: [
        new d.TextRun({
          text: `${doc.subtitle}. Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}.`,
          italics: true,
          color: "666666",
        }),
      ],
    }),
  ];

  const cellParagraph = (text: string, right: boolean, boldText: boolean) =>
    new d.Paragraph({
      alignment: right ? d.AlignmentType.RIGHT : d.AlignmentType.LEFT,
      spacing: { before: 20, after: 20 },
      children: [new d.TextRun({ text, bold: boldText, size: 18 })],
    });

  const table = (block: TableBlock) => {
    const chars = columnChars(block, 48);
    const sum = chars.reduce((s, c) => s + c, 0);
    const widths = chars.map((c) => Math.floor((c / sum) * TEXT_WIDTH));
    const row = (cells: string[], header: boolean) =>
      new d.TableRow({
        tableHeader: header,
        cantSplit: true,
        children: cells.map(
          (text, i) =>
            new d.TableCell({
              width: { size: widths[i] ?? 1000, type: d.WidthType.DXA },
              ...(header ? { shading: { fill: "DCE6F1", type: d.ShadingType.CLEAR, color: "auto" } } : {}),
              children: [cellParagraph(text, isNumeric(block.columns[i]?.format ?? "text"), header)],
            }),
        ),
      });
    return new d.Table({
      width: { size: TEXT_WIDTH, type: d.WidthType.DXA },
      columnWidths: widths,
      rows: [
        row(
          block.columns.map((c) => c.header),
          true,
        ),
        ...block.rows.map((r) =>
          row(
            block.columns.map((c, i) => formatCell(r[i] ?? null, c.format)),
            false,
          ),
        ),
      ],
    });
  };

  for (const section of doc.sections) {
    children.push(new d.Paragraph({ text: section.title, heading: d.HeadingLevel.HEADING_1 }));
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          children.push(new d.Paragraph({ text: block.text, heading: d.HeadingLevel.HEADING_2 }));
          break;
        case "paragraph":
          children.push(new d.Paragraph({ text: block.text }));
          break;
        case "bullets":
          for (const item of block.items)
            children.push(new d.Paragraph({ text: item, bullet: { level: 0 } }));
          break;
        case "facts":
          for (const f of block.items) {
            children.push(
              new d.Paragraph({
                children: [
                  new d.TextRun({ text: `${f.label}: `, bold: true }),
                  new d.TextRun({ text: formatCell(f.value, f.format) }),
                ],
              }),
            );
          }
          break;
        case "table":
          if (block.title) {
            children.push(
              new d.Paragraph({
                keepNext: true,
                spacing: { before: 160, after: 60 },
                children: [new d.TextRun({ text: block.title, bold: true })],
              }),
            );
          }
          children.push(table(block));
          children.push(
            new d.Paragraph({
              spacing: { after: 120 },
              children: block.caption
                ? [new d.TextRun({ text: block.caption, italics: true, size: 18, color: "666666" })]
                : [],
            }),
          );
          break;
      }
    }
  }

  const document = new d.Document({
    creator: GENERATOR,
    lastModifiedBy: GENERATOR,
    title: doc.title,
    subject: doc.subtitle,
    description: `${doc.subtitle} for Audience ${doc.audienceId}`,
    keywords: doc.kind,
    revision: 1,
    styles: {
      default: {
        document: { run: { font: "Calibri", size: 21 }, paragraph: { spacing: { after: 80 } } },
        title: { run: { size: 48, bold: true, color: "1F4E79" }, paragraph: { spacing: { after: 120 } } },
        heading1: {
          run: { size: 30, bold: true, color: "1F4E79" },
          paragraph: { spacing: { before: 360, after: 120 } },
        },
        heading2: {
          run: { size: 24, bold: true, color: "333333" },
          paragraph: { spacing: { before: 200, after: 80 } },
        },
      },
    },
    sections: [
      {
        properties: {
          page: {
            size: { width: 11906, height: 16838 },
            margin: { top: 1440, right: 1440, bottom: 1440, left: 1440 },
          },
        },
        footers: {
          default: new d.Footer({
            children: [
              new d.Paragraph({
                alignment: d.AlignmentType.RIGHT,
                children: [
                  new d.TextRun({
                    children: [
                      `${doc.title} \u00b7 Page `,
                      d.PageNumber.CURRENT,
                      " of ",
                      d.PageNumber.TOTAL_PAGES,
                    ],
                    size: 16,
                    color: "888888",
                  }),
                ],
              }),
            ],
          }),
        },
        children,
      },
    ],
  });
  return normalizeZip(await d.Packer.toArrayBuffer(document), doc.generatedAt);
}

// --------------------------------------------------------------------- PPTX (pptxgenjs)

type PptxClass = typeof import("pptxgenjs").default;

const SLIDE_W = 13.333;
const ACCENT = "1F4E79";
const MUTED = "6B6B73";
/** Bar-chart slides hold this many rows; longer tables become paged tables. */
const MAX_BAR_ROWS = 12;

async function renderPptx(doc: ExportDocument): Promise<Uint8Array> {
  // The package's types describe a CommonJS default; its ES build (what Node and bundlers load) exports the class.
  const mod = (await import("pptxgenjs")) as unknown as { default: PptxClass | { default: PptxClass } };
  const PptxGenJS = typeof mod.default === "function" ? mod.default : mod.default.default;
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_WIDE";
  pptx.author = GENERATOR;
  pptx.company = GENERATOR;
  pptx.subject = doc.subtitle;
  pptx.title = doc.title;
  pptx.defineSlideMaster({
    title: "CONTENT",
    background: { color: "FFFFFF" },
    objects: [
      { rect: { x: 0, y: 0, w: SLIDE_W, h: 0.12, fill: { color: ACCENT } } },
      {
        text: {
          text: `${doc.title} \u00b7 ${doc.subtitle}`,
          options: { x: 0.5, y: 7.0, w: 9, h: 0.3, fontSize: 9, color: MUTED },
        },
      },
    ],
    slideNumber: { x: 12.3, y: 7.0, w: 0.6, h: 0.3, fontSize: 9, color: MUTED },
  });

  const cover = pptx.addSlide({ masterName: "CONTENT" });
  cover.addText(doc.title, { x: 0.7, y: 2.2, w: 11.9, h: 1.3, fontSize: 36, bold: true, color: ACCENT });
  cover.addText(doc.subtitle, { x: 0.7, y: 3.5, w: 11.9, h: 0.6, fontSize: 20, color: "333333" });
  cover.addText(`Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}`, {
    x: 0.7,
    y: 4.2,
    w: 11.9,
    h: 0.4,
    fontSize: 12,
    color: MUTED,
  });

  const titled = (title: string, subtitle?: string) => {
    const slide = pptx.addSlide({ masterName: "CONTENT" });
    slide.addText(title, { x: 0.5, y: 0.3, w: 12.3, h: 0.6, fontSize: 24, bold: true, color: ACCENT });
    if (subtitle)
      slide.addText(subtitle, { x: 0.5, y: 0.9, w: 12.3, h: 0.45, fontSize: 14, color: "333333" });
    return slide;
  };

  type Run = { text: string; options?: Record<string, unknown> };
  /** About 20 lines of 14 pt text fit under a slide title; a paragraph takes a line per ~120 characters. */
  const LINES_PER_SLIDE = 20;
  const linesOf = (runs: Run[]) => {
    let lines = 0;
    let open = 0;
    for (const run of runs) {
      open += run.text.length;
      if (run.options?.breakLine === true) {
        lines += Math.max(1, Math.ceil(open / 120)) + (run.options.paraSpaceAfter ? 0.4 : 0);
        open = 0;
      }
    }
    return lines + (open > 0 ? Math.ceil(open / 120) : 0);
  };
  const flushText = (title: string, runs: Run[]) => {
    if (runs.length === 0) return;
    // Pages break between lines (a run that ends one), never inside a fact or paragraph.
    const pages: Run[][] = [];
    let page: Run[] = [];
    let line: Run[] = [];
    for (const run of runs) {
      line.push(run);
      if (run.options?.breakLine !== true) continue;
      if (page.length > 0 && linesOf([...page, ...line]) > LINES_PER_SLIDE) {
        pages.push(page);
        page = [];
      }
      page.push(...line);
      line = [];
    }
    page.push(...line);
    if (page.length > 0) pages.push(page);
    pages.forEach((p, i) => {
      const slide = titled(i === 0 ? title : `${title} (continued)`);
      slide.addText(p as never, {
        x: 0.5,
        y: 1.2,
        w: 12.3,
        h: 5.6,
        fontSize: 14,
        valign: "top",
        color: "222222",
      });
    });
  };

  const barSlide = (sectionTitle: string, heading: string | undefined, block: TableBlock, bars: number[]) => {
    const slide = titled(sectionTitle, heading);
    const top = heading ? 1.5 : 1.2;
    const bottom = block.caption || bars.length > 1 ? 6.1 : 6.8;
    const rowH = Math.min(0.42, (bottom - top) / Math.max(1, block.rows.length));
    let max = 0;
    for (const row of block.rows) {
      for (const b of bars) {
        const v = row[b];
        if (typeof v === "number") max = Math.max(max, v);
      }
    }
    const span = 5.6;
    const colors = bars.length > 1 ? ["9DB8D4", ACCENT] : [ACCENT];
    block.rows.forEach((row, i) => {
      const y = top + i * rowH;
      const label = formatCell(row[0] ?? null, block.columns[0]?.format ?? "text");
      slide.addText(label, { x: 0.5, y, w: 4.2, h: rowH, fontSize: 12, color: "222222", align: "right" });
      let longest = 0;
      bars.forEach((b, k) => {
        const v = row[b];
        if (typeof v !== "number" || v <= 0 || max <= 0) return;
        const w = Math.max(0.02, (v / max) * span);
        longest = Math.max(longest, w);
        const thick = (rowH * 0.7) / bars.length;
        slide.addShape(pptx.ShapeType.rect, {
          x: 4.9,
          y: y + rowH * 0.15 + k * thick,
          w,
          h: thick,
          fill: { color: colors[k] ?? ACCENT },
          line: { color: colors[k] ?? ACCENT },
        });
      });
      const values = block.columns
        .map((c, j) => (j === 0 ? null : `${c.header} ${formatCell(row[j] ?? null, c.format)}`))
        .filter((v): v is string => v !== null)
        .join("  \u00b7  ");
      slide.addText(values, { x: 4.9 + longest + 0.1, y, w: 3.6, h: rowH, fontSize: 10, color: MUTED });
    });
    const notes: string[] = [];
    if (bars.length > 1) {
      notes.push(`Bars: ${bars.map((b) => block.columns[b]?.header ?? "").join(" (light), ")} (dark).`);
    }
    if (block.caption) notes.push(block.caption);
    if (notes.length > 0) {
      slide.addText(notes.join(" "), {
        x: 0.5,
        y: 6.15,
        w: 12.3,
        h: 0.75,
        fontSize: 11,
        italic: true,
        color: MUTED,
      });
    }
  };

  const tableSlide = (sectionTitle: string, heading: string | undefined, block: TableBlock) => {
    const slide = titled(sectionTitle, heading);
    let y = heading ? 1.45 : 1.2;
    if (block.caption) {
      slide.addText(block.caption, { x: 0.5, y, w: 12.3, h: 0.5, fontSize: 11, italic: true, color: MUTED });
      y += 0.55;
    }
    const chars = columnChars(block, 60);
    const sum = chars.reduce((s, c) => s + c, 0);
    const colW = chars.map((c) => (c / sum) * 12.3);
    const header = block.columns.map((c) => ({
      text: c.header,
      options: { bold: true, fill: { color: "DCE6F1" }, align: isNumeric(c.format) ? "right" : "left" },
    }));
    const rows = block.rows.map((r) =>
      block.columns.map((c, i) => ({
        text: formatCell(r[i] ?? null, c.format),
        options: { align: isNumeric(c.format) ? "right" : "left" },
      })),
    );
    slide.addTable([header, ...rows] as never, {
      x: 0.5,
      y,
      w: 12.3,
      colW,
      fontSize: 11,
      color: "222222",
      border: { type: "solid", pt: 0.5, color: "BFBFBF" },
      autoPage: true,
      autoPageRepeatHeader: true,
      autoPageHeaderRows: 1,
      autoPageSlideStartY: 0.5,
    });
  };

  for (const section of doc.sections) {
    let runs: Run[] = [];
    section.blocks.forEach((block, index) => {
      const next = section.blocks[index + 1];
      switch (block.type) {
        case "subheading":
          // A subheading that introduces a table titles the table's slide instead.
          if (next?.type !== "table") {
            runs.push({ text: block.text, options: { bold: true, breakLine: true, paraSpaceBefore: 6 } });
          }
          break;
        case "paragraph":
          runs.push({ text: block.text, options: { breakLine: true, paraSpaceAfter: 6 } });
          break;
        case "bullets":
          for (const item of block.items)
            runs.push({ text: item, options: { bullet: true, breakLine: true } });
          break;
        case "facts":
          for (const f of block.items) {
            runs.push({ text: `${f.label}: `, options: { bold: true } });
            runs.push({ text: formatCell(f.value, f.format), options: { breakLine: true } });
          }
          break;
        case "table": {
          flushText(section.title, runs);
          runs = [];
          const previous = section.blocks[index - 1];
          const intro = previous?.type === "subheading" ? previous.text : undefined;
          const heading = [intro, block.title].filter((t) => t !== undefined).join(": ") || undefined;
          const bars = block.bars ?? [];
          if (bars.length > 0 && block.rows.length > 0 && block.rows.length <= MAX_BAR_ROWS) {
            barSlide(section.title, heading, block, bars);
          } else if (block.rows.length > 0) {
            tableSlide(section.title, heading, block);
          }
          break;
        }
      }
    });
    flushText(section.title, runs);
  }

  const written = await pptx.write({ outputType: "uint8array", compression: true });
  return normalizeZip(written as Uint8Array, doc.generatedAt);
}

// --------------------------------------------------------------------- XLSX (exceljs)

const NUMBER_FORMATS: Readonly<Record<CellFormat, string | null>> = {
  text: null,
  integer: "#,##0",
  percent: "0.0%",
  decimal: "0.000",
  points: "+0.0%;-0.0%;0.0%",
};

function sheetName(name: string, taken: Set<string>): string {
  const base = name.replace(/[[\]:*?/\\]/g, " ").slice(0, 31) || "Sheet";
  let candidate = base;
  for (let i = 2; taken.has(candidate.toLowerCase()); i++) candidate = `${base.slice(0, 27)} (${i})`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

async function renderXlsx(doc: ExportDocument): Promise<Uint8Array> {
  // CommonJS: Node puts the exports under `default`; a browser bundle may hand them over directly.
  const mod = await import("exceljs");
  const ExcelJS =
    (mod as unknown as { default?: typeof mod.default }).default ?? (mod as unknown as typeof mod.default);
  const wb = new ExcelJS.Workbook();
  const when = new Date(doc.generatedAt);
  wb.creator = GENERATOR;
  wb.lastModifiedBy = GENERATOR;
  wb.created = when;
  wb.modified = when;
  wb.title = doc.title;
  wb.subject = doc.subtitle;
  wb.keywords = doc.kind;
  const taken = new Set<string>();

  doc.sections.forEach((section, index) => {
    const ws = wb.addWorksheet(sheetName(section.sheet, taken), {
      pageSetup: { paperSize: 9, orientation: "landscape", fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
    });
    const widths: number[] = [];
    const widen = (col: number, text: string) => {
      widths[col] = Math.min(60, Math.max(widths[col] ?? 10, text.length + 2));
    };
    let r = 1;
    const put = (col: number, value: Cell, format: CellFormat) => {
      const cell = ws.getCell(r, col + 1);
      cell.value = value;
      const numFmt = typeof value === "number" ? NUMBER_FORMATS[format] : null;
      if (numFmt) cell.numFmt = numFmt;
      if (typeof value === "number") widen(col, formatCell(value, format));
      return cell;
    };
    if (index === 0) {
      ws.getCell(r, 1).value = doc.title;
      ws.getCell(r, 1).font = { bold: true, size: 16 };
      r++;
      ws.getCell(r, 1).value = `${doc.subtitle}. Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}.`;
      ws.getCell(r, 1).font = { italic: true, color: { argb: "FF666666" } };
      r += 2;
    }
    ws.getCell(r, 1).value = section.title;
    ws.getCell(r, 1).font = { bold: true, size: 14 };
    r += 2;
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          ws.getCell(r, 1).value = block.text;
          ws.getCell(r, 1).font = { bold: true };
          r++;
          break;
        case "paragraph":
          ws.getCell(r, 1).value = block.text;
          r += 2;
          break;
        case "bullets":
          for (const item of block.items) {
            ws.getCell(r, 1).value = `\u2022 ${item}`;
            r++;
          }
          r++;
          break;
        case "facts":
          for (const f of block.items) {
            ws.getCell(r, 1).value = f.label;
            ws.getCell(r, 1).font = { bold: true };
            widen(0, f.label);
            const cell = put(1, f.value, f.format);
            if (typeof f.value === "string") widen(1, f.value);
            cell.alignment = { horizontal: "left" };
            r++;
          }
          r++;
          break;
        case "table":
          if (block.title) {
            ws.getCell(r, 1).value = block.title;
            ws.getCell(r, 1).font = { bold: true };
            r++;
          }
          block.columns.forEach((c, i) => {
            const cell = ws.getCell(r, i + 1);
            cell.value = c.header;
            cell.font = { bold: true };
            cell.fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFDCE6F1" } };
            cell.alignment = { horizontal: isNumeric(c.format) ? "right" : "left" };
            widen(i, c.header);
          });
          r++;
          for (const row of block.rows) {
            block.columns.forEach((c, i) => {
              const value = row[i] ?? null;
              put(i, value, c.format);
              if (typeof value === "string") widen(i, value);
            });
            r++;
          }
          if (block.caption) {
            ws.getCell(r, 1).value = block.caption;
            ws.getCell(r, 1).font = { italic: true, color: { argb: "FF666666" } };
            r++;
          }
          r++;
          break;
      }
    }
    widths.forEach((w, i) => {
      ws.getColumn(i + 1).width = w;
    });
  });

  const buffer = await wb.xlsx.writeBuffer();
  return normalizeZip(new Uint8Array(buffer as ArrayBuffer), doc.generatedAt);
}
