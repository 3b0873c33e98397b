/**
 * DOCX with docx: headings, paragraphs, fact lists and tables.
 */
import {
  type ExportDocument,
  formatCell,
  formatTime,
  GENERATOR,
  isNumeric,
  type TableBlock,
} from "../document.ts";
import { columnChars, normalizeZip } from "./zip.ts";

export async function renderDocx(doc: ExportDocument): Promise<Uint8Array> {
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
