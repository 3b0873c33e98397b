/**
 * The smallest valid Office Open XML package, written over jszip: content types, relationships, core
 * properties and the parts a format hands over. XLSX and DOCX are built on it rather than on full Office
 * libraries, which cost the package's users about 50 MB of install for the few elements we write; the
 * tests read every document back with an independent reader of its format.
 */
import { escapeHtml } from "../../../core/control/html.ts";
import { GENERATOR } from "../document.ts";

const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
export const RELATIONSHIP = {
  officeDocument: `${REL}/officeDocument`,
  coreProperties: "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
  extendedProperties: `${REL}/extended-properties`,
  worksheet: `${REL}/worksheet`,
  styles: `${REL}/styles`,
  sharedStrings: `${REL}/sharedStrings`,
  numbering: `${REL}/numbering`,
  footer: `${REL}/footer`,
} as const;
export const R_NAMESPACE = REL;

/** One part of the package: its path, its content type, and its own relationships if any. */
export interface Part {
  path: string;
  contentType: string;
  xml: string;
  rels?: readonly Relationship[];
}

export interface Relationship {
  id: string;
  type: string;
  /** Relative to the part's folder. */
  target: string;
}

export interface PackageInfo {
  title: string;
  subject: string;
  description?: string;
  keywords: string;
  /** Epoch ms: the zip entries' dates and the created/modified properties, so bytes depend on content only. */
  when: number;
}

// XML 1.0 admits neither most control characters nor lone surrogates; user text can hold both.
const INVALID_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for XML content and quoted attributes: the characters XML cannot hold replaced, then escaped. */
export function esc(text: string): string {
  return escapeHtml(text.replace(INVALID_XML, "\ufffd"));
}

export const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

function relsXml(rels: readonly Relationship[]): string {
  const items = rels.map((r) => `<Relationship Id="${r.id}" Type="${r.type}" Target="${esc(r.target)}"/>`);
  return `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join("")}</Relationships>`;
}

function relsPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}_rels/${path.slice(slash + 1)}.rels`;
}

function coreXml(info: PackageInfo): string {
  const stamp = new Date(info.when).toISOString().replace(/\.\d{3}Z$/, "Z");
  return (
    `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ' +
    'xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<dc:title>${esc(info.title)}</dc:title><dc:subject>${esc(info.subject)}</dc:subject>` +
    `<dc:creator>${GENERATOR}</dc:creator><cp:keywords>${esc(info.keywords)}</cp:keywords>` +
    (info.description ? `<dc:description>${esc(info.description)}</dc:description>` : "") +
    `<cp:lastModifiedBy>${GENERATOR}</cp:lastModifiedBy><cp:revision>1</cp:revision>` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${stamp}</dcterms:created>` +
    `<dcterms:modified xsi:type="dcterms:W3CDTF">${stamp}</dcterms:modified></cp:coreProperties>`
  );
}

const APP_XML =
  `${XML_HEAD}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">` +
  `<Application>${GENERATOR}</Application></Properties>`;

/** Packs the main part and its parts into a package whose bytes depend only on the content. */
export async function packOoxml(main: Part, parts: readonly Part[], info: PackageInfo): Promise<Uint8Array> {
  const { default: JSZip } = await import("jszip");
  const all: Part[] = [
    main,
    ...parts,
    {
      path: "docProps/core.xml",
      contentType: "application/vnd.openxmlformats-package.core-properties+xml",
      xml: coreXml(info),
    },
    {
      path: "docProps/app.xml",
      contentType: "application/vnd.openxmlformats-officedocument.extended-properties+xml",
      xml: APP_XML,
    },
  ];
  const types =
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    all.map((p) => `<Override PartName="/${p.path}" ContentType="${p.contentType}"/>`).join("") +
    "</Types>";
  const zip = new JSZip();
  const date = new Date(info.when);
  const add = (path: string, xml: string) => zip.file(path, xml, { date, createFolders: false });
  // `[Content_Types].xml` first, as Office itself writes it.
  add("[Content_Types].xml", types);
  add(
    "_rels/.rels",
    relsXml([
      { id: "rId1", type: RELATIONSHIP.officeDocument, target: main.path },
      { id: "rId2", type: RELATIONSHIP.coreProperties, target: "docProps/core.xml" },
      { id: "rId3", type: RELATIONSHIP.extendedProperties, target: "docProps/app.xml" },
    ]),
  );
  for (const part of all) {
    add(part.path, part.xml);
    if (part.rels?.length) add(relsPath(part.path), relsXml(part.rels));
  }
  return zip.generateAsync({
    type: "uint8array",
    compression: "DEFLATE",
    compressionOptions: { level: 6 },
    platform: "DOS",
  });
}
