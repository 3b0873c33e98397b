/**
 * The Audience brief as a document: who the Audience is, its members, grounding, sources and coverage.
 */
import { baselineDistributions, type ChartDatum } from "../../generators/index.ts";
import type { Block, Cell, DocumentInput, ExportDocument, Section, TableBlock } from "./document.ts";
import { ATTRIBUTE_LABELS, columns, dimensionLabel, fact, formatTime } from "./document.ts";
import {
  audienceFacts,
  chartSourceLine,
  groundingSourcesTable,
  groundingSummary,
  sourceBundleBlocks,
  visibilityOf,
} from "./sections.ts";

export function briefDocument(input: DocumentInput): ExportDocument {
  const a = input.audience;
  return {
    kind: "brief",
    title: a.name,
    subtitle: "Audience brief",
    audienceId: a.id,
    audienceName: a.name,
    generatedAt: input.generatedAt,
    sections: [
      overviewSection(input),
      briefSection(input.audience),
      { title: "Keywords, links and files", sheet: "Sources bundle", blocks: sourceBundleBlocks(a.sources) },
      membersSection(input.members),
      groundingSection(a),
      coverageSection(a),
      {
        title: "Sources",
        sheet: "Sources",
        blocks:
          (a.grounding?.sources.length ?? 0) > 0
            ? [groundingSourcesTable(a)]
            : [{ type: "paragraph", text: "No grounding sources recorded." }],
      },
    ],
  };
}

type Audience = DocumentInput["audience"];
type Members = DocumentInput["members"];

function overviewSection(input: DocumentInput): Section {
  const { audience: a, members } = input;
  const attributed = members.filter((m) => Object.keys(m.attributes).length > 0).length;
  return {
    title: "Overview",
    sheet: "Overview",
    blocks: [
      {
        type: "facts",
        items: [
          ...audienceFacts(a, members),
          fact("Members with filter attributes", attributed, "integer"),
          fact("Created", formatTime(a.createdAt)),
          fact("Last updated", formatTime(a.updatedAt)),
          fact("Visibility", visibilityOf(a)),
          fact("Grounding", groundingSummary(a)),
          fact(
            "Research",
            a.research
              ? `${a.research.phase}${a.research.stage ? ` (${a.research.stage})` : ""}`
              : "researched",
          ),
          fact("Generated", formatTime(input.generatedAt)),
        ],
      },
    ],
  };
}

function briefSection(a: Audience): Section {
  const briefParagraphs = a.sources.brief
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  return {
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
}

function membersSection(members: Members): Section {
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
    for (const b of baselineDistributions(members)) {
      memberBlocks.push({
        type: "table",
        title: ATTRIBUTE_LABELS[b.dimension],
        columns: columns("Value", ["Members", "integer"], ["Share", "percent"]),
        rows: [
          ...b.distribution.map((d): Cell[] => [d.value, d.count, d.share]),
          ...(b.missing > 0 ? [["Not stated", b.missing, null] as Cell[]] : []),
        ],
        bars: [2],
      });
    }
  }
  return { title: "Members", sheet: "Members", blocks: memberBlocks };
}

function groundingSection(a: Audience): Section {
  const charts = a.grounding?.charts ?? [];
  const blocks: Block[] =
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
              columns: columns("Answer", ["Share", "percent"]),
              rows: c.data.map((d) => [d.label, d.share]),
              bars: [1],
              caption: `${c.evidence} ${chartSourceLine(a, c)}`,
            }),
          ),
        ];
  return { title: "Grounding", sheet: "Grounding", blocks };
}

function coverageSection(a: Audience): Section {
  const blocks: Block[] = [];
  if (!a.coverage || a.coverage.length === 0) {
    blocks.push({ type: "paragraph", text: "Coverage has not been measured for this Audience." });
  } else {
    const counts = { sourced: 0, proxy: 0, assumed: 0, missing: 0 };
    for (const d of a.coverage) counts[d.status]++;
    blocks.push({
      type: "paragraph",
      text: `Of ${a.coverage.length} standard dimensions, ${counts.sourced} are sourced, ${counts.proxy} use a proxy, ${counts.assumed} are assumed and ${counts.missing} are missing.`,
    });
    blocks.push({
      type: "table",
      columns: columns("Dimension", "Status", "Largest group", ["Share", "percent"]),
      rows: a.coverage.map((d) => {
        const data = Array.isArray(d.distribution) ? (d.distribution as ChartDatum[]) : [];
        let top: ChartDatum | undefined;
        for (const datum of data) if (!top || datum.share > top.share) top = datum;
        return [dimensionLabel(d.dimension), d.status, top?.label ?? null, top?.share ?? null];
      }),
    });
  }
  return { title: "Coverage", sheet: "Coverage", blocks };
}
