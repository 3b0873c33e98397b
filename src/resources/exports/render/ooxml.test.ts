/**
 * The hand-written Office packages, read back by independent readers (mammoth for DOCX, exceljs for XLSX):
 * every block kind, text that XML cannot hold as is, and bytes that depend on the content only.
 */
import ExcelJS from "exceljs";
import mammoth from "mammoth";
import { describe, expect, it } from "vitest";
import { columns, type ExportDocument, fact } from "../document.ts";
import { renderDocx } from "./docx.ts";
import { renderXlsx } from "./xlsx.ts";

const HOSTILE = 'Tom & Jerry <b>"quoted"</b> \u0001bell\u0007 \ud800 lone, \ud83d\ude00 emoji';

const doc: ExportDocument = {
  kind: "brief",
  title: `Brief for ${HOSTILE}`,
  subtitle: "Audience brief",
  audienceId: "5f0c7c1e-0000-4000-8000-000000000001",
  audienceName: HOSTILE,
  generatedAt: Date.UTC(2026, 10, 21, 12, 0, 0),
  sections: [
    {
      title: "Overview",
      sheet: "Summary: [all]",
      blocks: [
        { type: "subheading", text: "Why" },
        { type: "paragraph", text: "  leading and trailing spaces  " },
        { type: "bullets", items: ["first point", "second point"] },
        {
          type: "facts",
          items: [fact("Members", 1234, "integer"), fact("Name", HOSTILE), fact("Unknown", null, "decimal")],
        },
      ],
    },
    {
      title: "Shares",
      sheet: "Summary: [all]",
      blocks: [
        {
          type: "table",
          title: "Answer shares",
          columns: columns("Answer", ["Share", "percent"], ["Score", "decimal"], ["Difference", "points"]),
          rows: [
            ["Yes", 0.625, 0.84, 0.031],
            ["No", 0.375, null, -0.031],
          ],
          caption: "Shares of 8 answers.",
        },
      ],
    },
  ],
};

describe("DOCX writer", () => {
  it("is read by mammoth without a warning: title, headings, list, facts, table and caption", async () => {
    const { value: html, messages } = await mammoth.convertToHtml(
      { buffer: Buffer.from(await renderDocx(doc)) },
      { styleMap: ["p[style-name='Title'] => h1.title:fresh"] },
    );
    expect(messages).toEqual([]);
    expect(html).toContain(
      '<h1 class="title">Brief for Tom &amp; Jerry &lt;b&gt;"quoted"&lt;/b&gt; \ufffdbell\ufffd \ufffd lone, \ud83d\ude00 emoji</h1>',
    );
    expect(html).toContain("<h1>Overview</h1><h2>Why</h2>");
    expect(html).toContain("<ul><li>first point</li><li>second point</li></ul>");
    expect(html).toContain("<strong>Members: </strong>1,234");
    expect(html).toContain("<strong>Unknown: </strong>\u2014");
    expect(html).toContain("<table><thead><tr><th><p><strong>Answer</strong></p></th>");
    expect(html).toContain(
      "<tr><td><p>Yes</p></td><td><p>62.5%</p></td><td><p>0.840</p></td><td><p>+3.1 pp</p></td></tr>",
    );
    expect(html).toContain("<td><p>\u2014</p></td><td><p>\u22123.1 pp</p></td>");
    expect(html).toContain("<em>Shares of 8 answers.</em>");
  });

  it("renders the same bytes for the same document", async () => {
    expect(Buffer.from(await renderDocx(doc)).equals(Buffer.from(await renderDocx(doc)))).toBe(true);
  });
});

describe("XLSX writer", () => {
  it("is read by exceljs: a sheet per section with unique names, typed numbers in their formats", async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await renderXlsx(doc)).buffer as ArrayBuffer);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Summary   all ", "Summary   all  (2)"]);
    expect(wb.title).toBe(
      'Brief for Tom & Jerry <b>"quoted"</b> \ufffdbell\ufffd \ufffd lone, \ud83d\ude00 emoji',
    );
    expect(wb.created?.getTime()).toBe(doc.generatedAt);
    const first = wb.worksheets[0];
    expect(first?.getCell("A1").font?.bold).toBe(true);
    expect(first?.getCell("A1").font?.size).toBe(16);
    const values: unknown[][] = [];
    first?.eachRow((row) => {
      values.push((row.values as unknown[]).slice(1));
    });
    expect(values).toContainEqual(["\u2022 first point"]);
    expect(values).toContainEqual(["Members", 1234]);
    expect(values).toContainEqual(["  leading and trailing spaces  "]);
    const shares = wb.worksheets[1];
    let yes = 0;
    shares?.eachRow((row, n) => {
      if (row.getCell(1).value === "Yes") yes = n;
    });
    const row = shares?.getRow(yes);
    expect(row?.getCell(2).value).toBe(0.625);
    expect(row?.getCell(2).numFmt).toBe("0.0%");
    expect(row?.getCell(4).numFmt).toBe("+0.0%;-0.0%;0.0%");
    expect(shares?.getRow(yes + 1).getCell(3).value).toBeNull();
    expect(shares?.getRow(yes - 1).getCell(2).alignment?.horizontal).toBe("right");
    expect(shares?.getColumn(1).width).toBeGreaterThanOrEqual(10);
  });

  it("renders the same bytes for the same document", async () => {
    expect(Buffer.from(await renderXlsx(doc)).equals(Buffer.from(await renderXlsx(doc)))).toBe(true);
  });
});
