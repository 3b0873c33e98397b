/**
 * Markdown: the document as text, tables as pipe tables.
 */
import { type ExportDocument, formatCell, formatTime, GENERATOR, isNumeric } from "../document.ts";

export function mdCell(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ");
}

export function renderMarkdown(doc: ExportDocument): string {
  const out: string[] = [
    `# ${doc.title}`,
    "",
    `_${doc.subtitle}. Generated ${formatTime(doc.generatedAt)}._`,
    "",
  ];
  for (const section of doc.sections) {
    out.push(`## ${section.title}`, "");
    for (const block of section.blocks) {
      switch (block.type) {
        case "subheading":
          out.push(`### ${block.text}`, "");
          break;
        case "paragraph":
          out.push(block.text, "");
          break;
        case "bullets":
          for (const item of block.items) out.push(`- ${item}`);
          out.push("");
          break;
        case "facts":
          for (const f of block.items) out.push(`- **${f.label}:** ${formatCell(f.value, f.format)}`);
          out.push("");
          break;
        case "table": {
          if (block.title) out.push(`**${block.title}**`, "");
          out.push(`| ${block.columns.map((c) => mdCell(c.header)).join(" | ")} |`);
          out.push(`| ${block.columns.map((c) => (isNumeric(c.format) ? "---:" : "---")).join(" | ")} |`);
          for (const row of block.rows) {
            out.push(
              `| ${block.columns.map((c, i) => mdCell(formatCell(row[i] ?? null, c.format))).join(" | ")} |`,
            );
          }
          out.push("");
          if (block.caption) out.push(`_${block.caption}_`, "");
          break;
        }
      }
    }
  }
  out.push("---", "", `_${GENERATOR}. Audience ${doc.audienceId}._`, "");
  return out.join("\n");
}
