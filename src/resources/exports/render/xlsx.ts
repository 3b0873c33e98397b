/**
 * XLSX as a minimal SpreadsheetML package: a sheet per section, numbers stored as numbers with a format,
 * strings shared, a handful of cell styles.
 */
import type { Cell, CellFormat, ExportDocument } from "../document.ts";
import { formatCell, formatTime, GENERATOR, isNumeric } from "../document.ts";
import { esc, type Part, packOoxml, R_NAMESPACE, RELATIONSHIP, XML_HEAD } from "./ooxml.ts";

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml";

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

interface Style {
  bold?: boolean;
  italic?: boolean;
  size?: number;
  grey?: boolean;
  fill?: boolean;
  numFmt?: string | null;
  align?: "left" | "right";
}

/** Cell styles (`cellXfs`) made on demand, each font and number format written once. */
class Styles {
  private readonly fonts = ['<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'];
  private readonly numFmts: string[] = [];
  private readonly xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'];
  private readonly index = new Map<string, number>([["{}", 0]]);

  id(style: Style): number {
    const key = JSON.stringify(style);
    const known = this.index.get(key);
    if (known !== undefined) return known;
    const font =
      "<font>" +
      (style.bold ? "<b/>" : "") +
      (style.italic ? "<i/>" : "") +
      `<sz val="${style.size ?? 11}"/>` +
      (style.grey ? '<color rgb="FF666666"/>' : "") +
      '<name val="Calibri"/><family val="2"/></font>';
    const fontId = this.slot(this.fonts, font);
    const numFmtId = style.numFmt ? 164 + this.slot(this.numFmts, style.numFmt) : 0;
    const fillId = style.fill ? 2 : 0;
    const alignment = style.align ? `<alignment horizontal="${style.align}"/>` : "";
    const xf =
      `<xf numFmtId="${numFmtId}" fontId="${fontId}" fillId="${fillId}" borderId="0" xfId="0"` +
      `${numFmtId ? ' applyNumberFormat="1"' : ""}${fontId ? ' applyFont="1"' : ""}${fillId ? ' applyFill="1"' : ""}` +
      (alignment ? ` applyAlignment="1">${alignment}</xf>` : "/>");
    const id = this.xfs.push(xf) - 1;
    this.index.set(key, id);
    return id;
  }

  private slot(list: string[], item: string): number {
    const at = list.indexOf(item);
    return at >= 0 ? at : list.push(item) - 1;
  }

  xml(): string {
    const numFmts = this.numFmts.map(
      (code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${esc(code)}"/>`,
    );
    return (
      `${XML_HEAD}<styleSheet xmlns="${MAIN}">` +
      (numFmts.length ? `<numFmts count="${numFmts.length}">${numFmts.join("")}</numFmts>` : "") +
      `<fonts count="${this.fonts.length}">${this.fonts.join("")}</fonts>` +
      '<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
      '<fill><patternFill patternType="solid"><fgColor rgb="FFDCE6F1"/><bgColor indexed="64"/></patternFill></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${this.xfs.length}">${this.xfs.join("")}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
    );
  }
}

/** `A`, …, `Z`, `AA`, … for a 0-based column. */
function columnLetters(col: number): string {
  let out = "";
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26))
    out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

/** One worksheet being filled row by row; strings go to the workbook's shared table. */
class Sheet {
  private readonly rows = new Map<number, Map<number, string>>();
  private readonly widths: number[] = [];
  row = 1;

  private readonly styles: Styles;
  private readonly strings: (text: string) => number;
  constructor(styles: Styles, strings: (text: string) => number) {
    this.styles = styles;
    this.strings = strings;
  }

  put(col: number, value: Cell, style: Style = {}): void {
    if (value === null) return;
    const ref = `${columnLetters(col)}${this.row}`;
    const s = this.styles.id(style);
    const attr = s ? ` s="${s}"` : "";
    const xml =
      typeof value === "number"
        ? `<c r="${ref}"${attr}><v>${Number.isFinite(value) ? value : 0}</v></c>`
        : `<c r="${ref}"${attr} t="s"><v>${this.strings(value)}</v></c>`;
    const row = this.rows.get(this.row) ?? new Map<number, string>();
    this.rows.set(this.row, row);
    row.set(col, xml);
  }

  widen(col: number, text: string): void {
    this.widths[col] = Math.min(60, Math.max(this.widths[col] ?? 10, text.length + 2));
  }

  xml(): string {
    const cols = [...this.widths.entries()]
      .filter(([, w]) => w !== undefined)
      .map(([i, w]) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`);
    const rows = [...this.rows.entries()]
      .sort(([a], [b]) => a - b)
      .map(([r, cells]) => {
        const sorted = [...cells.entries()].sort(([a], [b]) => a - b).map(([, xml]) => xml);
        return `<row r="${r}">${sorted.join("")}</row>`;
      });
    return (
      `${XML_HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${R_NAMESPACE}">` +
      '<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>' +
      (cols.length ? `<cols>${cols.join("")}</cols>` : "") +
      `<sheetData>${rows.join("")}</sheetData>` +
      '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
      '<pageSetup paperSize="9" orientation="landscape" fitToWidth="1" fitToHeight="0"/></worksheet>'
    );
  }
}

const numberStyle = (value: Cell, format: CellFormat): Style =>
  typeof value === "number" && NUMBER_FORMATS[format] ? { numFmt: NUMBER_FORMATS[format] } : {};

function fillSheet(ws: Sheet, doc: ExportDocument, index: number): void {
  const section = doc.sections[index];
  if (!section) return;
  const put = (col: number, value: Cell, format: CellFormat, style: Style = {}) => {
    ws.put(col, value, { ...numberStyle(value, format), ...style });
    ws.widen(col, typeof value === "number" ? formatCell(value, format) : (value ?? ""));
  };
  if (index === 0) {
    ws.put(0, doc.title, { bold: true, size: 16 });
    ws.row++;
    ws.put(0, `${doc.subtitle}. Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}.`, {
      italic: true,
      grey: true,
    });
    ws.row += 2;
  }
  ws.put(0, section.title, { bold: true, size: 14 });
  ws.row += 2;
  for (const block of section.blocks) {
    switch (block.type) {
      case "subheading":
        ws.put(0, block.text, { bold: true });
        ws.row++;
        break;
      case "paragraph":
        ws.put(0, block.text);
        ws.row += 2;
        break;
      case "bullets":
        for (const item of block.items) {
          ws.put(0, `\u2022 ${item}`);
          ws.row++;
        }
        ws.row++;
        break;
      case "facts":
        for (const f of block.items) {
          ws.put(0, f.label, { bold: true });
          ws.widen(0, f.label);
          put(1, f.value, f.format, { align: "left" });
          ws.row++;
        }
        ws.row++;
        break;
      case "table":
        if (block.title) {
          ws.put(0, block.title, { bold: true });
          ws.row++;
        }
        block.columns.forEach((c, i) => {
          ws.put(i, c.header, { bold: true, fill: true, align: isNumeric(c.format) ? "right" : "left" });
          ws.widen(i, c.header);
        });
        ws.row++;
        for (const row of block.rows) {
          block.columns.forEach((c, i) => {
            put(i, row[i] ?? null, c.format);
          });
          ws.row++;
        }
        if (block.caption) {
          ws.put(0, block.caption, { italic: true, grey: true });
          ws.row++;
        }
        ws.row++;
        break;
    }
  }
}

export async function renderXlsx(doc: ExportDocument): Promise<Uint8Array> {
  const styles = new Styles();
  const shared: string[] = [];
  const sharedIndex = new Map<string, number>();
  const strings = (text: string) => {
    const known = sharedIndex.get(text);
    if (known !== undefined) return known;
    const at = shared.push(text) - 1;
    sharedIndex.set(text, at);
    return at;
  };
  const taken = new Set<string>();
  const sheets = doc.sections.map((section, index) => {
    const ws = new Sheet(styles, strings);
    fillSheet(ws, doc, index);
    return { name: sheetName(section.sheet, taken), xml: ws.xml() };
  });

  const parts: Part[] = sheets.map((s, i) => ({
    path: `xl/worksheets/sheet${i + 1}.xml`,
    contentType: `${TYPE}.worksheet+xml`,
    xml: s.xml,
  }));
  parts.push({ path: "xl/styles.xml", contentType: `${TYPE}.styles+xml`, xml: styles.xml() });
  const si = shared.map((t) => `<si><t xml:space="preserve">${esc(t)}</t></si>`).join("");
  parts.push({
    path: "xl/sharedStrings.xml",
    contentType: `${TYPE}.sharedStrings+xml`,
    xml: `${XML_HEAD}<sst xmlns="${MAIN}" count="${shared.length}" uniqueCount="${shared.length}">${si}</sst>`,
  });
  const workbook: Part = {
    path: "xl/workbook.xml",
    contentType: `${TYPE}.sheet.main+xml`,
    xml:
      `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${R_NAMESPACE}"><bookViews><workbookView/></bookViews><sheets>` +
      sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("") +
      "</sheets></workbook>",
    rels: [
      ...sheets.map((_, i) => ({
        id: `rId${i + 1}`,
        type: RELATIONSHIP.worksheet,
        target: `worksheets/sheet${i + 1}.xml`,
      })),
      { id: `rId${sheets.length + 1}`, type: RELATIONSHIP.styles, target: "styles.xml" },
      { id: `rId${sheets.length + 2}`, type: RELATIONSHIP.sharedStrings, target: "sharedStrings.xml" },
    ],
  };
  return packOoxml(workbook, parts, {
    title: doc.title,
    subject: doc.subtitle,
    keywords: doc.kind,
    when: doc.generatedAt,
  });
}
