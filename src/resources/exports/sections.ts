/**
 * Pieces of document that the brief and the validation report share: visibility, grounding and the
 * source bundle (files by name only: exports are shared by every viewer, so no uploaded-file address).
 */

import type { AudienceRecord, ValidationRecord } from "../../core/world/state.ts";
import type { Chart, SourceBundle } from "../../generators/index.ts";
import type { Block, Fact, TableBlock } from "./document.ts";
import { columns, fact, formatBytes, sourceAddress } from "./document.ts";

export function scoredValidations(audience: AudienceRecord): ValidationRecord[] {
  return audience.validations
    .filter((v) => v.status === "scored" && v.score !== null)
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function hasScoredValidation(audience: AudienceRecord): boolean {
  return scoredValidations(audience).length > 0;
}

export function visibilityOf(a: AudienceRecord): string {
  const parts = [a.isPublic ? "Public (listed in the marketplace)" : "Private"];
  if (a.isSharedWithTeam) parts.push("shared with the owner's team");
  if (a.isLinkSharingEnabled) parts.push("link sharing on");
  return parts.join(", ");
}

export function groundingSummary(a: AudienceRecord): string {
  const g = a.grounding;
  if (!g || g.charts.length === 0) return "No stored grounding";
  return `${g.charts.length} chart${g.charts.length === 1 ? "" : "s"} from ${g.sources.length} source${g.sources.length === 1 ? "" : "s"}`;
}

export function chartSourceLine(a: AudienceRecord, chart: Chart): string {
  const source = a.grounding?.sources[chart.sourceIndex];
  return source ? `Source: ${source.title} (${sourceAddress(source.url)}).` : "Source: not recorded.";
}

export function groundingSourcesTable(a: AudienceRecord): TableBlock {
  return {
    type: "table",
    title: "Grounding sources",
    columns: columns(["#", "integer"], "Title", "Address"),
    rows: (a.grounding?.sources ?? []).map((s, i) => [i + 1, s.title, sourceAddress(s.url)]),
  };
}

export function sourceBundleBlocks(sources: SourceBundle): Block[] {
  // Each part of the bundle gets its heading, and a sentence instead of an empty table.
  const part = (heading: string, content: Block | null, none: string): Block[] => [
    { type: "subheading", text: heading },
    content ?? { type: "paragraph", text: none },
  ];
  const { keywords, links, files } = sources;
  return [
    ...part(
      "Keywords",
      keywords.length ? { type: "paragraph", text: keywords.join(", ") } : null,
      "No keywords recorded.",
    ),
    ...part(
      "Links",
      links.length
        ? { type: "table", columns: columns("Title", "Address"), rows: links.map((l) => [l.title, l.url]) }
        : null,
      "No links recorded.",
    ),
    ...part(
      "Files",
      files.length
        ? {
            type: "table",
            columns: columns("File", "Type", "Size"),
            rows: files.map((f) => [f.name, f.contentType, formatBytes(f.sizeBytes)]),
            caption: "File contents and uploaded-file addresses are not included in exports.",
          }
        : null,
      "No files attached.",
    ),
  ];
}

/** The facts every document opens with: which Audience, and how many members it has. */
export function audienceFacts(a: AudienceRecord, members: readonly unknown[]): Fact[] {
  return [fact("Audience", a.name), fact("Audience ID", a.id), fact("Members", members.length, "integer")];
}
