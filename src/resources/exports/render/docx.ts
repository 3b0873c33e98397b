/**
 * DOCX as a minimal WordprocessingML package: title, headings, paragraphs, bullets, fact lines and tables
 * on A4, with a page-numbered footer.
 */
import type { ExportDocument, TableBlock } from "../document.ts";
import { formatCell, formatTime, GENERATOR, isNumeric } from "../document.ts";
import { esc, type Part, packOoxml, R_NAMESPACE, RELATIONSHIP, XML_HEAD } from "./ooxml.ts";
import { columnChars } from "./zip.ts";

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml";
/** A4 with 1-inch margins, in twentieths of a point. */
const TEXT_WIDTH = 9026;

/** `size` in half-points. */
type RunStyle = Partial<{ bold: boolean; italic: boolean; size: number; color: string }>;

function run(text: string, style: RunStyle = {}): string {
  const props =
    (style.bold ? "<w:b/>" : "") +
    (style.italic ? "<w:i/>" : "") +
    (style.color ? `<w:color w:val="${style.color}"/>` : "") +
    (style.size ? `<w:sz w:val="${style.size}"/><w:szCs w:val="${style.size}"/>` : "");
  return `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ""}<w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;
}

/** `before` and `after` in twentieths of a point. */
type ParagraphStyle = Partial<{
  style: string;
  keepNext: boolean;
  bullet: boolean;
  before: number;
  after: number;
  right: boolean;
}>;

function paragraph(runs: string, p: ParagraphStyle = {}): string {
  const spacing =
    p.before !== undefined || p.after !== undefined
      ? `<w:spacing${p.before !== undefined ? ` w:before="${p.before}"` : ""}${p.after !== undefined ? ` w:after="${p.after}"` : ""}/>`
      : "";
  const props =
    (p.style ? `<w:pStyle w:val="${p.style}"/>` : "") +
    (p.keepNext ? "<w:keepNext/>" : "") +
    (p.bullet ? '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>' : "") +
    spacing +
    (p.right ? '<w:jc w:val="right"/>' : "");
  return `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ""}${runs}</w:p>`;
}

function table(block: TableBlock): string {
  const chars = columnChars(block, 48);
  const sum = chars.reduce((s, c) => s + c, 0);
  const widths = chars.map((c) => Math.floor((c / sum) * TEXT_WIDTH));
  const row = (cells: string[], header: boolean) =>
    `<w:tr><w:trPr><w:cantSplit/>${header ? "<w:tblHeader/>" : ""}</w:trPr>` +
    cells
      .map(
        (text, i) =>
          `<w:tc><w:tcPr><w:tcW w:w="${widths[i] ?? 1000}" w:type="dxa"/>` +
          (header ? '<w:shd w:val="clear" w:color="auto" w:fill="DCE6F1"/>' : "") +
          "</w:tcPr>" +
          paragraph(run(text, { bold: header, size: 18 }), {
            before: 20,
            after: 20,
            right: isNumeric(block.columns[i]?.format ?? "text"),
          }) +
          "</w:tc>",
      )
      .join("") +
    "</w:tr>";
  const border = (side: string) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="BFBFBF"/>`;
  return (
    `<w:tbl><w:tblPr><w:tblW w:w="${TEXT_WIDTH}" w:type="dxa"/><w:tblBorders>` +
    ["top", "left", "bottom", "right", "insideH", "insideV"].map(border).join("") +
    '</w:tblBorders><w:tblLayout w:type="fixed"/></w:tblPr>' +
    `<w:tblGrid>${widths.map((w) => `<w:gridCol w:w="${w}"/>`).join("")}</w:tblGrid>` +
    row(
      block.columns.map((c) => c.header),
      true,
    ) +
    block.rows
      .map((r) =>
        row(
          block.columns.map((c, i) => formatCell(r[i] ?? null, c.format)),
          false,
        ),
      )
      .join("") +
    "</w:tbl>"
  );
}

function body(doc: ExportDocument): string {
  const out = [
    paragraph(run(doc.title), { style: "Title" }),
    paragraph(
      run(`${doc.subtitle}. Generated ${formatTime(doc.generatedAt)} by ${GENERATOR}.`, {
        italic: true,
        color: "666666",
      }),
    ),
  ];
  for (const section of doc.sections) {
    out.push(paragraph(run(section.title), { style: "Heading1" }));
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          out.push(paragraph(run(block.text), { style: "Heading2" }));
          break;
        case "paragraph":
          out.push(paragraph(run(block.text)));
          break;
        case "bullets":
          for (const item of block.items) out.push(paragraph(run(item), { bullet: true }));
          break;
        case "facts":
          for (const f of block.items)
            out.push(paragraph(run(`${f.label}: `, { bold: true }) + run(formatCell(f.value, f.format))));
          break;
        case "table":
          if (block.title)
            out.push(paragraph(run(block.title, { bold: true }), { keepNext: true, before: 160, after: 60 }));
          out.push(table(block));
          out.push(
            paragraph(block.caption ? run(block.caption, { italic: true, size: 18, color: "666666" }) : "", {
              after: 120,
            }),
          );
          break;
      }
    }
  }
  return out.join("");
}

const STYLES =
  `${XML_HEAD}<w:styles xmlns:w="${W}"><w:docDefaults><w:rPrDefault><w:rPr>` +
  '<w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/>' +
  '<w:sz w:val="21"/><w:szCs w:val="21"/><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault>' +
  '<w:pPrDefault><w:pPr><w:spacing w:after="80"/></w:pPr></w:pPrDefault></w:docDefaults>' +
  '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
  heading("Title", "Title", 0, 120, 48, "1F4E79") +
  heading("Heading1", "heading 1", 360, 120, 30, "1F4E79", 0) +
  heading("Heading2", "heading 2", 200, 80, 24, "333333", 1) +
  '<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr>' +
  '<w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/>' +
  '<w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style></w:styles>';

function heading(
  id: string,
  name: string,
  before: number,
  after: number,
  size: number,
  color: string,
  level?: number,
) {
  return (
    `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:basedOn w:val="Normal"/>` +
    `<w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="${before}" w:after="${after}"/>` +
    `${level === undefined ? "" : `<w:outlineLvl w:val="${level}"/>`}</w:pPr>` +
    `<w:rPr><w:b/><w:color w:val="${color}"/><w:sz w:val="${size}"/><w:szCs w:val="${size}"/></w:rPr></w:style>`
  );
}

const NUMBERING =
  `${XML_HEAD}<w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0">` +
  '<w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/>' +
  '<w:lvlText w:val="\u2022"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl>' +
  '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>';

function footer(title: string): string {
  const grey = { size: 16, color: "888888" };
  const field = (instr: string) => `<w:fldSimple w:instr="${instr}">${run("1", grey)}</w:fldSimple>`;
  return (
    `${XML_HEAD}<w:ftr xmlns:w="${W}">` +
    paragraph(run(`${title} \u00b7 Page `, grey) + field("PAGE") + run(" of ", grey) + field("NUMPAGES"), {
      right: true,
    }) +
    "</w:ftr>"
  );
}

export async function renderDocx(doc: ExportDocument): Promise<Uint8Array> {
  const section =
    '<w:sectPr><w:footerReference w:type="default" r:id="rId3"/><w:pgSz w:w="11906" w:h="16838"/>' +
    '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/>' +
    "</w:sectPr>";
  const main: Part = {
    path: "word/document.xml",
    contentType: `${TYPE}.document.main+xml`,
    xml: `${XML_HEAD}<w:document xmlns:w="${W}" xmlns:r="${R_NAMESPACE}"><w:body>${body(doc)}${section}</w:body></w:document>`,
    rels: [
      { id: "rId1", type: RELATIONSHIP.styles, target: "styles.xml" },
      { id: "rId2", type: RELATIONSHIP.numbering, target: "numbering.xml" },
      { id: "rId3", type: RELATIONSHIP.footer, target: "footer1.xml" },
    ],
  };
  const parts: Part[] = [
    { path: "word/styles.xml", contentType: `${TYPE}.styles+xml`, xml: STYLES },
    { path: "word/numbering.xml", contentType: `${TYPE}.numbering+xml`, xml: NUMBERING },
    { path: "word/footer1.xml", contentType: `${TYPE}.footer+xml`, xml: footer(doc.title) },
  ];
  return packOoxml(main, parts, {
    title: doc.title,
    subject: doc.subtitle,
    description: `${doc.subtitle} for Audience ${doc.audienceId}`,
    keywords: doc.kind,
    when: doc.generatedAt,
  });
}
