/**
 * The exported files opened by readers from other ecosystems (poppler's pdftotext, qpdf, python's openpyxl
 * and python-docx), each a process of its own: in `npm test`, out of the unit loop. A reader that is not
 * installed is skipped with a note; `.ci/run` installs them all.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { download, exportReady } from "../../../testing/exports.ts";
import { harnessEachTest } from "../../../testing/harness.ts";
import { tempDirForTests } from "../../../testing/temp-dir.ts";

const { h, fresh } = harnessEachTest();
fresh();
const audienceName = (handle: string) => h.audience(handle)?.name ?? "";
const tmp = tempDirForTests("exports-readers-test-");

it.each([
  "pdftotext",
  "qpdf",
])("%s reads the PDF (skipped with a note when the tool is not installed)", async (tool) => {
  const installed = spawnSync(tool, ["--version"]).error === undefined;
  if (!installed) {
    console.warn(`exports.test: ${tool} is not installed; the external PDF check is skipped`);
    return;
  }
  const ready = await exportReady(h, "main", "validation_report", "pdf");
  const { bytes } = await download(h, ready.downloadUrl);
  if (tool === "pdftotext") {
    const text = execFileSync("pdftotext", ["-layout", "-", "-"], { input: bytes }).toString("utf8");
    expect(text).toContain(audienceName("main"));
    expect(text).toContain("Answer-share agreement");
    expect(text).toContain("Composition check");
  } else {
    const file = join(tmp.path, "report.pdf");
    writeFileSync(file, bytes);
    // qpdf exits 0 for a clean file (2 for errors, 3 for warnings).
    const check = spawnSync("qpdf", ["--check", file]);
    expect(check.status, check.stdout.toString()).toBe(0);
  }
});

// A third reader, from another ecosystem: Debian's python3-openpyxl and python3-docx (`.ci/run` installs them).
const PYTHON = "/usr/bin/python3";
const READ_OOXML = `
import sys, openpyxl, docx
kind, path = sys.argv[1], sys.argv[2]
if kind == "xlsx":
  wb = openpyxl.load_workbook(path)
  v1 = [r for r in wb["KPIs"].iter_rows(values_only=True) if r[0] == "V1"][0]
  print(wb.properties.title, "|", ",".join(wb.sheetnames), "|", v1[1], v1[2], v1[3], v1[4])
else:
  d = docx.Document(path)
  print(d.core_properties.title, "|", d.paragraphs[0].style.name, "|", len(d.tables))
`;
it.each([
  "xlsx",
  "docx",
] as const)("python's reader opens the %s (skipped with a note when not installed)", async (format) => {
  const installed = spawnSync(PYTHON, ["-c", "import openpyxl, docx"]).status === 0;
  if (!installed) {
    console.warn("exports.test: python3-openpyxl / python3-docx are not installed; that check is skipped");
    return;
  }
  const ready = await exportReady(h, "main", "validation_report", format);
  const { bytes } = await download(h, ready.downloadUrl);
  const file = join(tmp.path, `report.${format}`);
  writeFileSync(file, bytes);
  const out = execFileSync(PYTHON, ["-c", READ_OOXML, format, file]).toString("utf8").trim();
  const title = `${audienceName("main")}: validation report`;
  if (format === "xlsx")
    expect(out).toBe(
      `${title} | Summary,Score calculation,KPIs,Answer shares,Composition,Provenance | Answer-share agreement 0.84 0.79 0.88`,
    );
  else expect(out).toMatch(new RegExp(`^${title} \\| Title \\| \\d+$`));
});
