/**
 * Exports: the kinds and formats offered, a validation report only with a scored validation.
 */

import { OFFERED_FORMATS } from "../../lib/description/answers.ts";
import { check } from "../../lib/running/context.ts";

export const exportsRules = check("domain/exports", ["exports/kinds"], {
  needs: { roles: ["owner"], audiences: ["main", "private"] },
  mutates: true,
  async run(ctx) {
    const main = ctx.target.audience("main");
    const priv = ctx.target.audience("private");
    const OFFERED = OFFERED_FORMATS;
    const NOT_OFFERED = { brief: "xlsx", validation_report: "pptx" } as const;
    const cases = (["brief", "validation_report"] as const).flatMap((kind) => [
      ...OFFERED[kind].map((format) => [kind, format, 200] as const),
      [kind, NOT_OFFERED[kind], 400] as const,
    ]);
    for (const [kind, format, expected] of cases) {
      const ex = await ctx.call({
        op: "exportAudience",
        params: { audienceId: main },
        as: ctx.as("owner"),
        json: { kind, format },
      });
      ctx.expectStatus(ex, expected, "exports/kinds", `${kind} as ${format}`);
    }
    const report = (audienceId: string, role: "owner" | "studyViewer") =>
      ctx.call({
        op: "exportAudience",
        params: { audienceId },
        as: ctx.as(role),
        json: { kind: "validation_report", format: "pdf" },
      });
    const none = await report(priv, "owner");
    ctx.expectCode(
      none,
      409,
      "VALIDATION_REPORT_UNAVAILABLE",
      "exports/kinds",
      "a validation report without a scored validation",
    );
    if (ctx.target.has("studyViewer")) {
      // A Study viewer may read main but not edit it, and a validation report needs edit access.
      const viewer = await report(main, "studyViewer");
      ctx.expect(
        viewer.status === 403 || viewer.status === 404,
        "exports/kinds",
        `a Study viewer (no edit access) exporting the validation report answered ${viewer.status}`,
        viewer,
      );
    }
    const status = await ctx.call({
      op: "getExportStatus",
      params: { audienceId: priv },
      as: ctx.as("owner"),
      query: { kind: "validation_report" },
    });
    ctx.expect(
      status.status === 200 && status.body?.data?.status === "unavailable",
      "exports/kinds",
      `export-status answered ${status.status} with status ${JSON.stringify(status.body?.data?.status)}`,
      status,
    );
  },
});
