/**
 * The state machines the API description defines, as the transitions a run can observe. Coverage reports
 * which of them the run saw, so a gap in behaviour (a build never seen failing, a recalibration never seen
 * running) shows as plainly as an operation never called. `∅` is "before it existed".
 */
export const MACHINES: Record<string, readonly string[]> = {
  // States and transitions: Formation status; the inline build may answer ready or failed at once.
  formation: [
    "∅→building",
    "∅→ready",
    "∅→failed",
    "building→ready",
    "building→failed",
    "ready→building",
    "failed→building",
    "ready→deleted",
  ],
  // Research and operation status: the receipt of a recalibration through its statusUrl.
  recalibration: ["∅→queued", "queued→running", "running→completed", "running→failed", "completed→replayed"],
  // Research stage: researching, then waiting_for_runs, then recalibrating, then done.
  research: [
    "∅→researching",
    "researching→waiting_for_runs",
    "researching→recalibrating",
    "waiting_for_runs→recalibrating",
    "recalibrating→done",
    "researching→done",
  ],
  // Exports: a cached artifact at once, or a job that is queued and polled until it can be downloaded.
  export: ["∅→cached", "∅→queued", "queued→downloadable"],
  // Hosted checkout: open until the buyer completes; cancel closes an open session.
  checkout: ["∅→open", "open→open (complete before buyer)", "open→canceled", "canceled→canceled"],
  // Collaborators: an accepted invitation, then removed by a manager.
  collaborator: ["accepted→removed"],
  // API keys: created, then deleted (and refused at once).
  apiKey: ["∅→live", "live→deleted"],
};
