import { isTerminalStatus, type JobAdapterV1, type JobSnapshot, type JobTool } from "@jobtasks/core";
import { FixtureJobTable, type FixtureJob } from "./fixture-job-table.js";
import type { FixtureTool } from "./fixture-tool.js";
import { fixtureTools } from "./fixture-tools.js";

export interface ConformanceAdapterOptions {
  /** Suggested client polling interval. Default 250 ms: the fixtures' jobs last a second or so. */
  pollIntervalMs?: number;
  /** Jobs kept before the oldest is forgotten. Default 10,000. */
  maxJobs?: number;
  now?: () => number;
}

/** Jobs are kept for an hour (or until the table is full): longer than any conformance run. */
const retentionMs = 60 * 60 * 1000;

/**
 * An adapter whose upstream is the fixture job table: each tool the conformance suite calls starts one
 * job, which the real server serves as any other (tasks, polling, answers, cancellation).
 */
export function conformanceAdapter(options: ConformanceAdapterOptions = {}): JobAdapterV1<string> {
  const now = options.now ?? Date.now;
  const jobs = new FixtureJobTable(options.maxJobs);
  const byName = new Map(fixtureTools.map((tool) => [tool.name, tool]));

  const observe = (job: FixtureJob): JobSnapshot => {
    if (job.cancelledAt !== undefined)
      return { status: "cancelled", rawStatus: "cancelled", message: "cancelled on request" };
    return byName.get(job.tool)!.observe(job, now());
  };

  const toJobTool = (tool: FixtureTool): JobTool<string> => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.synchronousWaitMs !== undefined ? { synchronousWaitMs: tool.synchronousWaitMs } : {}),
    ...(tool.inputBeforeStart ? { inputBeforeStart: tool.inputBeforeStart.bind(tool) } : {}),
    async doStart(input, context) {
      const job = jobs.add(tool.name, input, now(), context.inputResponses ?? {});
      return { ref: job.id, snapshot: observe(job) };
    },
  });

  return {
    specificationVersion: "v1",
    kind: "conformance",
    tools: fixtureTools.map(toJobTool),
    pollIntervalMs: options.pollIntervalMs ?? 250,
    retentionMs,

    async doGetStatus(ref) {
      return observe(jobs.get(ref));
    },

    async doRespond(ref, responses) {
      // The server passes only keys the job has outstanding; each is answered once, so a key never returns.
      Object.assign(jobs.get(ref).answers, responses);
    },

    async doCancel(ref) {
      const job = jobs.get(ref);
      // A finished job stays as it ended: terminal answers never change.
      if (!isTerminalStatus(observe(job).status)) job.cancelledAt = now();
    },
  };
}
