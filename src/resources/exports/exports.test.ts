import ExcelJS from "exceljs";
import JSZip from "jszip";
import mammoth from "mammoth";
import { PDFDocument } from "pdf-lib";
import { beforeEach, describe, expect, it } from "vitest";
import { audiencePath, download, exportReady } from "../../../testing/exports.ts";
import { expectError, type Harness, harness } from "../../../testing/harness.ts";
import { UPLOADED_FILE_URL_PREFIX } from "../../generators/index.ts";
import { EXPORT_RUN_MS, EXPORT_START_DELAY_MS } from "./exports.ts";

let h: Harness;
beforeEach(async () => {
  h = await harness();
});

const base = (audience: string, prefix = "/api/v1") => audiencePath(h, audience, prefix);
const exportJobs = () => h.sim.clock.pending().filter((j) => j.kind.startsWith("exports."));

const CONTENT_TYPES = {
  pdf: "application/pdf",
  md: "text/markdown; charset=utf-8",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
} as const;

type Format = keyof typeof CONTENT_TYPES;

async function zipOf(bytes: Uint8Array) {
  expect(String.fromCharCode(bytes[0] ?? 0, bytes[1] ?? 0)).toBe("PK");
  const zip = await JSZip.loadAsync(bytes);
  expect(zip.file("[Content_Types].xml")).not.toBeNull();
  return zip;
}

const audienceName = (handle: string) => h.audience(handle)?.name ?? "";
const memberCount = (handle: string) => h.audience(handle)?.memberIds.length ?? 0;

describe("export lifecycle, every offered format", () => {
  it.each([
    ["brief", "pdf"],
    ["brief", "md"],
    ["brief", "docx"],
    ["brief", "pptx"],
    ["validation_report", "pdf"],
    ["validation_report", "md"],
    ["validation_report", "docx"],
    ["validation_report", "xlsx"],
  ] as const)("%s as %s: queued, running, ready, then the real file", async (kind, format) => {
    const id = h.id("audiences", "main");
    const posted = await h.call("POST", `${base("main")}/export`, { body: { kind, format } });
    expect(posted.status).toBe(200);
    const job = posted.body.data;
    expect(job).toMatchObject({
      kind,
      format,
      status: "queued",
      cached: false,
      contentType: CONTENT_TYPES[format],
    });
    expect(job.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.downloadUrl).toBe(`/api/v1/audiences/${id}/export-download?kind=${kind}&format=${format}`);
    expect(job.statusUrl).toBe(`/api/v1/audiences/${id}/export-status?kind=${kind}&format=${format}`);

    const queued = await h.call("GET", job.statusUrl);
    expect(queued.body.data).toMatchObject({ status: "queued", jobId: job.jobId });
    h.sim.advance(EXPORT_START_DELAY_MS);
    expect((await h.call("GET", job.statusUrl)).body.data.status).toBe("running");
    const early = await download(h, job.downloadUrl);
    expectError(early, 404, "Export not found");

    h.sim.advance(EXPORT_RUN_MS);
    const ready = (await h.call("GET", job.statusUrl)).body.data;
    expect(ready).toMatchObject({ status: "ready", jobId: job.jobId, upToDate: true });
    expect(Date.parse(ready.readyAt) - Date.parse(ready.requestedAt)).toBe(
      EXPORT_START_DELAY_MS + EXPORT_RUN_MS,
    );

    const file = await download(h, job.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe(CONTENT_TYPES[format]);
    const fileName = `european-b2b-saas-buyers-${kind}.${format}`;
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${fileName}"`);
    expect(ready.fileName).toBe(fileName);
    expect(ready.sizeBytes).toBe(file.bytes.byteLength);
    expect(file.headers.get("ratelimit-limit")).not.toBeNull();

    const name = audienceName("main");
    switch (format as Format) {
      case "pdf": {
        expect(new TextDecoder().decode(file.bytes.slice(0, 5))).toBe("%PDF-");
        const pdf = await PDFDocument.load(file.bytes, { updateMetadata: false });
        expect(pdf.getPageCount()).toBeGreaterThan(1);
        expect(pdf.getTitle()).toBe(kind === "brief" ? name : `${name}: validation report`);
        // PDF dates count whole seconds.
        const started = Math.floor(Date.parse(ready.startedAt) / 1000) * 1000;
        expect(pdf.getCreationDate()?.getTime()).toBe(started);
        break;
      }
      case "md": {
        const md = new TextDecoder().decode(file.bytes);
        expect(md).toContain(`# ${name}`);
        expect(md).toContain(`- **Members:** ${memberCount("main")}`);
        expect(md).not.toContain(UPLOADED_FILE_URL_PREFIX);
        break;
      }
      case "docx": {
        const zip = await zipOf(file.bytes);
        const xml = await zip.file("word/document.xml")?.async("string");
        expect(xml).toContain(name);
        // An independent reader: mammoth maps styles, lists and tables to HTML, and lists what it could not read.
        const { value: html, messages } = await mammoth.convertToHtml(
          { buffer: Buffer.from(file.bytes) },
          { styleMap: ["p[style-name='Title'] => h1.title:fresh"] },
        );
        expect(messages).toEqual([]);
        expect(html).toContain(`<h1 class="title">${name}`);
        expect(html).toContain("<h2>");
        expect(html).toMatch(/<table>.*<th>|<table>.*<td>/s);
        const heading = kind === "brief" ? "Members" : "KPIs";
        expect(html).toContain(heading);
        if (kind === "validation_report") {
          // What the description says the report contains, as a reader of the DOCX sees it: every scored
          // validation, the score calculation, every KPI with its 95% interval, answer shares, composition
          // and provenance.
          for (const part of [
            "<h1>Summary</h1>",
            "Scored validations",
            "Overall score calculation",
            "KPIs with 95% intervals",
            "Answer shares by question",
            "Composition check",
            "<h1>Provenance</h1>",
          ])
            expect(html).toContain(part);
          expect(html).toMatch(
            /<td><p>Answer-share agreement<\/p><\/td><td><p>0\.840<\/p><\/td><td><p>0\.790<\/p><\/td><td><p>0\.880<\/p><\/td>/,
          );
        }
        const core = await zip.file("docProps/core.xml")?.async("string");
        expect(core).toContain(
          `<dc:title>${kind === "brief" ? name : `${name}: validation report`}</dc:title>`,
        );
        expect(core).toContain(
          `<dcterms:created xsi:type="dcterms:W3CDTF">${ready.startedAt.replace(/\.\d{3}Z$/, "Z")}`,
        );
        break;
      }
      case "pptx": {
        const zip = await zipOf(file.bytes);
        expect(zip.file("ppt/presentation.xml")).not.toBeNull();
        expect(await zip.file("ppt/slides/slide1.xml")?.async("string")).toContain(name);
        break;
      }
      case "xlsx": {
        const zip = await zipOf(file.bytes);
        expect(zip.file("xl/workbook.xml")).not.toBeNull();
        const wb = new ExcelJS.Workbook();
        await wb.xlsx.load(file.bytes.buffer as ArrayBuffer);
        expect(wb.getWorksheet("Summary")?.getCell("A1").value).toBe(`${name}: validation report`);
        const kpis = wb.getWorksheet("KPIs");
        const rows: unknown[][] = [];
        kpis?.eachRow((row) => {
          rows.push((row.values as unknown[]).slice(1));
        });
        expect(rows).toContainEqual(["V1", "Answer-share agreement", 0.84, 0.79, 0.88, expect.any(Number)]);
        // Numbers stay numbers, shown in their format; headers are bold on a fill.
        let v1Row = 0;
        kpis?.eachRow((row, n) => {
          if (row.getCell(1).value === "V1") v1Row = n;
        });
        const header = kpis?.getRow(v1Row - 1);
        expect(header?.getCell(1).font?.bold).toBe(true);
        expect(header?.getCell(1).fill).toMatchObject({ type: "pattern", pattern: "solid" });
        expect(kpis?.getRow(v1Row).getCell(3).numFmt).toBe("0.000");
        expect(wb.title).toBe(`${name}: validation report`);
        expect(wb.creator).toBe("Audience Research Service (simulator)");
        break;
      }
    }
  });
});

describe("document content", () => {
  it("the brief in Markdown states the brief, keywords, links, members, grounding with sources, and coverage", async () => {
    const ready = await exportReady(h, "main", "brief", "md");
    const md = new TextDecoder().decode((await download(h, ready.downloadUrl)).bytes);
    const a = h.audience("main");
    if (!a?.grounding) throw new Error("main has grounding");
    expect(md).toContain(a.sources.brief.split("\n")[0] ?? "");
    for (const k of a.sources.keywords) expect(md).toContain(k);
    for (const l of a.sources.links) expect(md).toContain(l.url);
    for (const f of a.sources.files) expect(md).toContain(f.name);
    for (const c of a.grounding.charts) {
      expect(md).toContain(c.question);
      for (const d of c.data) expect(md).toContain(`| ${d.label} | ${(d.share * 100).toFixed(1)}% |`);
    }
    for (const section of ["## Members", "**Perspective**", "## Grounding", "## Coverage", "## Sources"]) {
      expect(md).toContain(section);
    }
    // Exports are shared by every viewer: uploaded-file addresses never appear.
    expect(md).not.toContain(UPLOADED_FILE_URL_PREFIX);
    expect(md).toContain("uploaded file, address withheld");
  });

  it("the validation report in Markdown has every KPI with its interval, the score calculation, answer shares, composition and provenance", async () => {
    const ready = await exportReady(h, "main", "validation_report", "markdown");
    expect(ready.format).toBe("md");
    const md = new TextDecoder().decode((await download(h, ready.downloadUrl)).bytes);
    const a = h.audience("main");
    const validation = a?.validations.find((v) => v.status === "scored");
    if (!validation?.score) throw new Error("main has a scored validation");
    for (const k of validation.kpis) {
      expect(md).toContain(
        `| V1 | ${k.name} | ${k.value.toFixed(3)} | ${k.low.toFixed(3)} | ${k.high.toFixed(3)} | ${(k.high - k.low).toFixed(3)} |`,
      );
    }
    expect(md).toContain("## KPIs with 95% intervals");
    expect(md).toContain("## Overall score calculation");
    expect(md).toContain(`| Overall score | — | — | ${validation.score.toFixed(3)} |`);
    expect(md).toContain("## Answer shares by question");
    for (const c of a?.grounding?.charts ?? []) expect(md).toContain(`**V1: ${c.question}**`);
    expect(md).toMatch(/Agreement \d+\.\d%/);
    expect(md).toContain("## Composition check");
    expect(md).toMatch(/total variation distance \d\.\d{3}/);
    expect(md).toContain("## Provenance");
    expect(md).toContain(validation.id);
    expect(md).not.toContain(UPLOADED_FILE_URL_PREFIX);
  });

  it("renders the same bytes for the same state and request sequence", async () => {
    const bytesOf = async (k: Harness) => {
      h = k;
      const out: string[] = [];
      for (const [kind, format] of [
        ["brief", "pdf"],
        ["brief", "docx"],
        ["brief", "pptx"],
        ["validation_report", "xlsx"],
      ]) {
        const ready = await exportReady(h, "main", kind as string, format as string);
        const { bytes } = await download(h, ready.downloadUrl);
        out.push(Buffer.from(bytes).toString("base64"));
      }
      return out;
    };
    const first = await bytesOf(await harness());
    const second = await bytesOf(await harness());
    expect(second).toEqual(first);
  });
});

describe("kinds, formats and access", () => {
  it.each([
    ["brief", "xlsx"],
    ["validation_report", "pptx"],
  ])("answers 400 for %s as %s on POST, export-status and export-download", async (kind, format) => {
    const message = `Format ${format} is not available for kind ${kind}`;
    const posted = await h.call("POST", `${base("main")}/export`, { body: { kind, format } });
    expectError(posted, 400, message);
    const status = await h.call("GET", `${base("main")}/export-status?kind=${kind}&format=${format}`);
    expectError(status, 400, message);
    const file = await download(h, `${base("main")}/export-download?kind=${kind}&format=${format}`);
    expect(file.status).toBe(400);
    expect(exportJobs()).toHaveLength(0);
  });

  it.each([
    [{ format: "csv" }, "Invalid export format"],
    [{ kind: "summary" }, "Invalid export kind"],
    [{ force: "yes" }, "force must be a boolean"],
    [[], "Request body must be a JSON object"],
  ])("refuses the body %j with 400 %s", async (body, message) => {
    const r = await h.call("POST", `${base("main")}/export`, { body });
    expectError(r, 400, message);
  });

  it.each([
    ["export-status?kind=report", "Invalid export kind"],
    ["export-status?format=markdown", "Invalid export format"],
    ["export-download?format=csv", "Invalid export format"],
  ])("answers 400 for the query of %s with %s", async (path, message) => {
    const r = await h.call("GET", `${base("main")}/${path}`);
    expectError(r, 400, message);
  });

  it("defaults to a PDF brief, and accepts `markdown` as `md` for the same artifact", async () => {
    const plain = await h.call("POST", `${base("main")}/export`, {});
    expect(plain.body.data).toMatchObject({ kind: "brief", format: "pdf", status: "queued" });
    const status = await h.call("GET", `${base("main")}/export-status`);
    expect(status.body.data).toMatchObject({ kind: "brief", format: "pdf", status: "queued" });

    const alias = await h.call("POST", `${base("main")}/export`, { body: { format: "markdown" } });
    expect(alias.body.data).toMatchObject({ kind: "brief", format: "md", status: "queued" });
    const same = await h.call("POST", `${base("main")}/export`, { body: { format: "md" } });
    expect(same.body.data.jobId).toBe(alias.body.data.jobId);
  });

  it("reports `none` before anything was requested, and 404 for a download", async () => {
    const status = await h.call("GET", `${base("main")}/export-status?kind=brief&format=docx`);
    expect(status.body).toEqual({ data: { kind: "brief", format: "docx", status: "none" } });
    const file = await download(h, `${base("main")}/export-download?kind=brief&format=docx`);
    expectError(file, 404, "Export not found");
  });

  it("answers 409 VALIDATION_REPORT_UNAVAILABLE without a scored validation, and export-status says unavailable", async () => {
    const posted = await h.call("POST", `${base("private")}/export`, {
      body: { kind: "validation_report", format: "pdf" },
    });
    expect(posted.status).toBe(409);
    expect(posted.body).toMatchObject({
      statusMessage: "No scored validation is available for this audience",
      data: { code: "VALIDATION_REPORT_UNAVAILABLE" },
    });
    const status = await h.call("GET", `${base("private")}/export-status?kind=validation_report&format=xlsx`);
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({
      kind: "validation_report",
      format: "xlsx",
      status: "unavailable",
      code: "VALIDATION_REPORT_UNAVAILABLE",
    });
    expect(exportJobs()).toHaveLength(0);
    // The brief of the same Audience exports, with no grounding to show.
    const brief = await exportReady(h, "private", "brief", "md");
    const md = new TextDecoder().decode((await download(h, brief.downloadUrl)).bytes);
    expect(md).toContain("This Audience has no stored grounding.");
  });

  it.each([
    ["studyViewer", "main"],
    ["owner", "public"],
  ])("gives %s (a viewer without edit access to %s) the brief but 404 for the validation report", async (as, audience) => {
    for (const [method, path, body] of [
      ["POST", "export", { kind: "validation_report", format: "pdf" }],
      ["GET", "export-status?kind=validation_report&format=pdf", undefined],
      ["GET", "export-download?kind=validation_report&format=pdf", undefined],
    ] as const) {
      const r =
        method === "POST"
          ? await h.call(method, `${base(audience)}/${path}`, { as, body })
          : await download(h, `${base(audience)}/${path}`, as);
      expectError(r, 404, "Audience not found");
    }
    const ready = await exportReady(h, audience, "brief", "pdf", as);
    expect((await download(h, ready.downloadUrl, as)).status).toBe(200);
  });

  it("gives collaborators the validation report, and 404 to callers with no role", async () => {
    for (const as of ["admin", "member", "teammate"]) {
      const r = await h.call("POST", `${base("main")}/export`, { as, body: { kind: "validation_report" } });
      expect(r.status).toBe(200);
    }
    for (const kind of ["brief", "validation_report"]) {
      const r = await h.call("POST", `${base("main")}/export`, { as: "outsider", body: { kind } });
      expect(r.status).toBe(404);
      const s = await h.call("GET", `${base("main")}/export-status?kind=${kind}`, { as: "outsider" });
      expect(s.status).toBe(404);
    }
    // The publisher owns `public` but it has no scored validation.
    const pub = await h.call("POST", `${base("public")}/export`, {
      as: "publisher",
      body: { kind: "validation_report", format: "docx" },
    });
    expect(pub.status).toBe(409);
  });

  it("answers 400 for a malformed Audience ID and 404 for an unknown one", async () => {
    const bad = await h.call("POST", "/api/v1/audiences/not-a-uuid/export", { body: {} });
    expectError(bad, 400, "Invalid audience ID format");
    const missing = await h.call(
      "GET",
      "/api/v1/audiences/00000000-0000-4000-8000-000000000000/export-status",
    );
    expect(missing.status).toBe(404);
  });
});

describe("caching", () => {
  it("returns a current artifact at once without a new job, and `force` queues a new one", async () => {
    const ready = await exportReady(h, "main", "brief", "pdf");
    const again = await h.call("POST", `${base("main")}/export`, { body: { format: "pdf" } });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      status: "ready",
      cached: true,
      jobId: ready.jobId,
      sizeBytes: ready.sizeBytes,
      readyAt: ready.readyAt,
    });
    expect(exportJobs()).toHaveLength(0);

    const forced = await h.call("POST", `${base("main")}/export`, { body: { format: "pdf", force: true } });
    expect(forced.body.data).toMatchObject({ status: "queued", cached: false });
    expect(forced.body.data.jobId).not.toBe(ready.jobId);
    expect(exportJobs()).toHaveLength(1);
    expect((await download(h, ready.downloadUrl)).status).toBe(404);
    h.sim.advance(EXPORT_START_DELAY_MS + EXPORT_RUN_MS);
    const done = await h.call("GET", ready.statusUrl);
    expect(done.body.data).toMatchObject({ status: "ready", jobId: forced.body.data.jobId });
  });

  it("a request while a job is under way joins that job", async () => {
    const first = await h.call("POST", `${base("main")}/export`, { body: { kind: "validation_report" } });
    h.sim.advance(EXPORT_START_DELAY_MS);
    const second = await h.call("POST", `${base("main")}/export`, { body: { kind: "validation_report" } });
    expect(second.body.data).toMatchObject({
      status: "running",
      jobId: first.body.data.jobId,
      cached: false,
    });
    expect(exportJobs()).toHaveLength(1);
  });

  it("re-exports once the Audience has changed, and names the file after the new name", async () => {
    const ready = await exportReady(h, "main", "brief", "docx");
    h.sim.advance(1000);
    const put = await h.call("PUT", base("main"), { body: { name: "Nordic SaaS buyers" } });
    expect(put.status).toBe(200);
    const stale = await h.call("GET", ready.statusUrl);
    expect(stale.body.data).toMatchObject({ status: "ready", upToDate: false });
    const again = await h.call("POST", `${base("main")}/export`, { body: { format: "docx" } });
    expect(again.body.data).toMatchObject({ status: "queued", cached: false });
    h.sim.advance(EXPORT_START_DELAY_MS + EXPORT_RUN_MS);
    const file = await download(h, ready.downloadUrl);
    expect(file.headers.get("content-disposition")).toBe(
      'attachment; filename="nordic-saas-buyers-brief.docx"',
    );
  });

  it("keeps one artifact per kind and format, and serves them under /v1 too", async () => {
    const v1 = await h.call("POST", `${base("main", "/v1")}/export`, { body: { format: "md" } });
    expect(v1.body.data.downloadUrl).toMatch(
      /^\/v1\/audiences\/[0-9a-f-]{36}\/export-download\?kind=brief&format=md$/,
    );
    await h.call("POST", `${base("main")}/export`, { body: { format: "pdf" } });
    expect(exportJobs()).toHaveLength(2);
    h.sim.advance(EXPORT_START_DELAY_MS + EXPORT_RUN_MS);
    const file = await download(h, v1.body.data.downloadUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe(CONTENT_TYPES.md);
  });

  it("drops the job of an Audience deleted before it ran", async () => {
    const posted = await h.call("POST", `${base("private")}/export`, { body: {} });
    expect(posted.status).toBe(200);
    expect((await h.call("DELETE", base("private"))).status).toBe(204);
    h.sim.advance(EXPORT_START_DELAY_MS + EXPORT_RUN_MS);
    expect((await h.call("GET", `${base("private")}/export-status`)).status).toBe(404);
  });
});
