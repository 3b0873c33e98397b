/**
 * The document model behind exports: kinds, formats, file names, and the typed blocks (headings,
 * paragraphs, facts, tables) that every renderer reads; cell formatting shared by all of them.
 */

import type { AudienceRecord } from "../../core/world/state.ts";
import type { FilterAttributeKey, FilterAttributes, StandardDimension } from "../../generators/index.ts";
import { isUploadedFileUrl } from "../../generators/index.ts";

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

export type Cell = string | number | null;
/** How a number is shown: shares as percentages, scores as decimals, differences in percentage points. */
export type CellFormat = "text" | "integer" | "percent" | "decimal" | "points";

export interface Column {
  header: string;
  format: CellFormat;
}

/** Columns, each a header (text) or a header and its format. */
export function columns(...spec: (string | [string, CellFormat])[]): Column[] {
  return spec.map((c) =>
    typeof c === "string" ? { header: c, format: "text" } : { header: c[0], format: c[1] },
  );
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

export function fact(label: string, value: Cell, format: CellFormat = "text"): Fact {
  return { label, value, format };
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

export const DASH = "\u2014";

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

export const isNumeric = (format: CellFormat): boolean => format !== "text";

/** `2026-11-21 12:00 UTC`: timestamps in documents are read by people. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export const ATTRIBUTE_LABELS: Readonly<Record<FilterAttributeKey, string>> = {
  perspective: "Perspective",
  industry: "Industry",
  role: "Role",
  country: "Country",
  companySize: "Company size",
  technology: "Technology",
  businessModel: "Business model",
};

export const DIMENSION_LABELS: Readonly<Record<StandardDimension, string>> = {
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

export function dimensionLabel(dimension: string): string {
  return (DIMENSION_LABELS as Record<string, string>)[dimension] ?? dimension;
}

/** A grounding source as exports show it: uploaded files keep their title but never their address. */
export function sourceAddress(url: string): string {
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
export function roundShares(weights: readonly number[]): number[] {
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
export function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return Math.round((sum / 2) * 1000) / 1000;
}
