/**
 * PDF with pdf-lib and its standard fonts: a small flowing layout (headings, paragraphs, facts, tables
 * that break across pages), footers with page numbers.
 */
import type { Cell, ExportDocument, Fact, TableBlock } from "../document.ts";
import { formatCell, formatTime, GENERATOR, isNumeric } from "../document.ts";

export type PdfLib = typeof import("pdf-lib");
export type PDFFont = import("pdf-lib").PDFFont;
export type PDFPage = import("pdf-lib").PDFPage;
export type PDFDocument = import("pdf-lib").PDFDocument;

export const A4: [number, number] = [595.28, 841.89];
export const MARGIN = 56;
export const FOOTER = 24;

/** Top-down page layout with wrapping, page breaks and tables that repeat their header. */
export class PdfLayout {
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

  private readonly doc: PDFDocument;
  readonly fonts: { regular: PDFFont; bold: PDFFont; italic: PDFFont };
  constructor(lib: PdfLib, doc: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont; italic: PDFFont }) {
    this.doc = doc;
    this.fonts = fonts;
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

export async function renderPdf(doc: ExportDocument): Promise<Uint8Array> {
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
      if (block.type === "subheading") {
        l.ensure(60);
        l.gap(2);
        l.text(block.text, { font: fonts.bold, size: 11 });
      } else if (block.type === "paragraph") l.text(block.text);
      else if (block.type === "bullets")
        for (const item of block.items) l.text(`\u2022 ${item}`, { indent: 8 });
      else if (block.type === "facts") l.facts(block.items);
      else l.table(block);
      // A table keeps its own spacing; a subheading sits close to what it heads.
      if (block.type !== "table") l.gap(block.type === "subheading" ? 2 : 6);
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
