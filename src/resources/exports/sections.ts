/**
 * Pieces of document that the brief and the validation report share: visibility, grounding and the
 * source bundle (files by name only: exports are shared by every viewer, so no uploaded-file address).
 */
import type { Chart, SourceBundle } from "../../../fixtures/index.ts";
import type { AudienceRecord, ValidationRecord } from "../../core/state.ts";
import { type Block, formatBytes, sourceAddress, type TableBlock } from "./document.ts";

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
    columns: [
      { header: "#", format: "integer" },
      { header: "Title", format: "text" },
      { header: "Address", format: "text" },
    ],
    rows: (a.grounding?.sources ?? []).map((s, i) => [i + 1, s.title, sourceAddress(s.url)]),
  };
}

export function sourceBundleBlocks(sources: SourceBundle): Block[] {
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
