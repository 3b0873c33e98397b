/**
 * An export as the world keeps it. In a module of its own so that the routes and the dashboard's view both
 * read it, neither through the other.
 */
import type { ExportDocument, ExportFormat, ExportKind } from "./document.ts";

export type ExportJobStatus = "queued" | "running" | "ready" | "failed";

export interface ExportRecord {
  audienceId: string;
  kind: ExportKind;
  format: ExportFormat;
  status: ExportJobStatus;
  jobId: string;
  requestedBy: string;
  requestedAt: number;
  startedAt: number | null;
  readyAt: number | null;
  failedAt: number | null;
  error: string | null;
  fileName: string;
  /** The document as the job snapshotted it; null until the job starts. */
  document: ExportDocument | null;
  /** Fingerprint of the snapshot's content, compared with the Audience's current one. */
  fingerprint: string | null;
  /** Known once the artifact has been rendered (always before a ready artifact is shown). */
  sizeBytes: number | null;
}
