/**
 * The documents behind Audience exports (description, "Audiences: exports"): an Audience brief and a
 * validation report, built from the Audience as plain data, then rendered as Markdown, PDF, DOCX, PPTX or
 * XLSX (a module per format under render/).
 *
 * Building is synchronous and runtime-free: `buildExportDocument` turns an Audience into an
 * `ExportDocument` (sections of headings, paragraphs, facts and typed tables), a JSON value a job can keep.
 * Rendering is asynchronous: each binary renderer loads its library with a dynamic `import()`, so neither
 * the simulator's start-up nor a browser bundle pays for pdf-lib, docx, pptxgenjs, exceljs or jszip until
 * an export is made. The same document always renders to the same bytes: creation dates come from the
 * document's virtual time, ZIP entries are re-stamped with it, and nothing random is drawn.
 *
 * Exports are shared by every viewer of the Audience, so they never carry uploaded-file addresses (the
 * description redacts those for public viewers); files are listed by name only.
 */
import { briefDocument } from "./brief.ts";
import type { DocumentInput, ExportDocument, ExportFormat, ExportKind } from "./document.ts";
import { hash32 } from "./document.ts";
import { renderDocx } from "./render/docx.ts";
import { renderMarkdown } from "./render/markdown.ts";
import { renderPdf } from "./render/pdf.ts";
import { renderPptx } from "./render/pptx.ts";
import { renderXlsx } from "./render/xlsx.ts";
import { validationReportDocument } from "./validation-report.ts";

export function buildExportDocument(kind: ExportKind, input: DocumentInput): ExportDocument {
  return kind === "brief" ? briefDocument(input) : validationReportDocument(input);
}

/** What decides whether a cached artifact is still current: the document's content, its time aside. */
export function documentFingerprint(kind: ExportKind, input: DocumentInput): string {
  const doc = buildExportDocument(kind, { ...input, generatedAt: 0 });
  const text = JSON.stringify(doc);
  return `${hash32(text).toString(16)}-${hash32(`${text.length}:${text}`).toString(16)}-${text.length}`;
}

export async function renderDocument(doc: ExportDocument, format: ExportFormat): Promise<Uint8Array> {
  switch (format) {
    case "md":
      return new TextEncoder().encode(renderMarkdown(doc));
    case "pdf":
      return renderPdf(doc);
    case "docx":
      return renderDocx(doc);
    case "pptx":
      return renderPptx(doc);
    case "xlsx":
      return renderXlsx(doc);
  }
}
