/**
 * What the ZIP-based formats share: entries re-stamped with the document's virtual time, so the same
 * document always renders to the same bytes; and column widths for tables.
 */
import { formatCell, isNumeric, type TableBlock } from "../document.ts";

export type ZipInput = Uint8Array | ArrayBuffer;

/**
 * Re-packs an Office file so its bytes depend only on its content: every entry is stamped with the
 * document's time (libraries stamp the wall clock) and the core properties' dates are set to it too.
 */
export async function normalizeZip(input: ZipInput, when: number): Promise<Uint8Array> {
  const { default: JSZip } = await import("jszip");
  const source = await JSZip.loadAsync(input);
  const out = new JSZip();
  const date = new Date(when);
  const stamp = new Date(when).toISOString().replace(/\.\d{3}Z$/, "Z");
  const names: string[] = [];
  source.forEach((path) => {
    names.push(path);
  });
  // `[Content_Types].xml` first, as Office itself writes it; the rest in the library's order.
  names.sort((x, y) => Number(y === "[Content_Types].xml") - Number(x === "[Content_Types].xml"));
  for (const name of names) {
    const entry = source.file(name);
    if (!entry) continue;
    let data: Uint8Array | string = await entry.async("uint8array");
    if (name === "docProps/core.xml") {
      data = new TextDecoder()
        .decode(data)
        .replace(/(<dcterms:(created|modified)\b[^>]*>)[^<]*(<\/dcterms:\2>)/g, `$1${stamp}$3`);
    }
    out.file(name, data, { date, createFolders: false });
  }
  return out.generateAsync({
    type: "uint8array",
    compression: "DEFLATE",
    compressionOptions: { level: 6 },
    platform: "DOS",
  });
}

/** A table's column widths in characters, for formats that size columns themselves. */
export function columnChars(block: TableBlock, cap: number): number[] {
  return block.columns.map((c, i) => {
    let w = c.header.length;
    for (const row of block.rows) w = Math.max(w, formatCell(row[i] ?? null, c.format).length);
    return Math.min(cap, Math.max(isNumeric(c.format) ? 9 : 8, w + 2));
  });
}
