/**
 * PPTX with pptxgenjs: a title slide, a slide per section, tables and bar charts of shares.
 */
import type { ExportDocument, TableBlock } from "../document.ts";
import { formatCell, formatTime, GENERATOR, isNumeric } from "../document.ts";
import { columnChars, normalizeZip } from "./zip.ts";

export type PptxClass = typeof import("pptxgenjs").default;

export const SLIDE_W = 13.333;
export const ACCENT = "1F4E79";
export const MUTED = "6B6B73";
/** Bar-chart slides hold this many rows; longer tables become paged tables. */
export const MAX_BAR_ROWS = 12;

export async function renderPptx(doc: ExportDocument): Promise<Uint8Array> {
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

  const deck = new Deck(pptx);
  for (const section of doc.sections) deck.section(section);
  const written = await pptx.write({ outputType: "uint8array", compression: true });
  return normalizeZip(written as Uint8Array, doc.generatedAt);
}

type Pptx = InstanceType<PptxClass>;
type Run = { text: string; options?: Record<string, unknown> };
/** About 20 lines of 14 pt text fit under a slide title; a paragraph takes a line per ~120 characters. */
const LINES_PER_SLIDE = 20;

function linesOf(runs: Run[]): number {
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
}

/** The slides of a deck: a section's text in pages, its tables as bar charts or paged tables. */
class Deck {
  private readonly pptx: Pptx;
  constructor(pptx: Pptx) {
    this.pptx = pptx;
  }

  section(section: ExportDocument["sections"][number]): void {
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
          this.flushText(section.title, runs);
          runs = [];
          const previous = section.blocks[index - 1];
          const intro = previous?.type === "subheading" ? previous.text : undefined;
          const heading = [intro, block.title].filter((t) => t !== undefined).join(": ") || undefined;
          const bars = block.bars ?? [];
          if (bars.length > 0 && block.rows.length > 0 && block.rows.length <= MAX_BAR_ROWS) {
            this.barSlide(section.title, heading, block, bars);
          } else if (block.rows.length > 0) {
            this.tableSlide(section.title, heading, block);
          }
          break;
        }
      }
    });
    this.flushText(section.title, runs);
  }

  private titled(title: string, subtitle?: string) {
    const slide = this.pptx.addSlide({ masterName: "CONTENT" });
    slide.addText(title, { x: 0.5, y: 0.3, w: 12.3, h: 0.6, fontSize: 24, bold: true, color: ACCENT });
    if (subtitle)
      slide.addText(subtitle, { x: 0.5, y: 0.9, w: 12.3, h: 0.45, fontSize: 14, color: "333333" });
    return slide;
  }

  private flushText(title: string, runs: Run[]): void {
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
      const slide = this.titled(i === 0 ? title : `${title} (continued)`);
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
  }

  private barSlide(
    sectionTitle: string,
    heading: string | undefined,
    block: TableBlock,
    bars: number[],
  ): void {
    const slide = this.titled(sectionTitle, heading);
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
        slide.addShape(this.pptx.ShapeType.rect, {
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
  }

  private tableSlide(sectionTitle: string, heading: string | undefined, block: TableBlock): void {
    const slide = this.titled(sectionTitle, heading);
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
  }
}
