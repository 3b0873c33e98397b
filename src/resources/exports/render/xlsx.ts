/**
 * XLSX with exceljs: a sheet per table, numbers typed and formatted.
 */
import {
  type Cell,
  type CellFormat,
  type ExportDocument,
  formatCell,
  formatTime,
  GENERATOR,
  isNumeric,
} from "../document.ts";
import { normalizeZip } from "./zip.ts";

export const NUMBER_FORMATS: Readonly<Record<CellFormat, string | null>> = {
  text: null,
  integer: "#,##0",
  percent: "0.0%",
  decimal: "0.000",
  points: "+0.0%;-0.0%;0.0%",
};

export function sheetName(name: string, taken: Set<string>): string {
  const base = name.replace(/[[\]:*?/\\]/g, " ").slice(0, 31) || "Sheet";
  let candidate = base;
  for (let i = 2; taken.has(candidate.toLowerCase()); i++) candidate = `${base.slice(0, 27)} (${i})`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

export async function renderXlsx(doc: ExportDocument): Promise<Uint8Array> {
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
