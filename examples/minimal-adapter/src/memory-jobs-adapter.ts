import {
  configErrorFromIssues,
  type ElicitationResponse,
  type InputRequest,
  type JobAdapterV1,
  type JobSnapshot,
} from "@jobtasks/core";
import { MemoryJobTable, type MemoryJob } from "./memory-jobs-api.js";
import { mapMemoryJobsStatus } from "./map-memory-jobs-status.js";
import { memoryJobsOptionsSchema, type MemoryJobsOptions } from "./memory-jobs-options.js";
import { runJobTool } from "./run-job-tool.js";
import { memoryJobRefSchema, type MemoryJobRef } from "./memory-job-ref.js";

/** The factory. `table` is a programmatic extra (tests inspect and arrange it); a config file cannot carry it. */
export function memoryJobs(
  options: MemoryJobsOptions = {},
  extras: { table?: MemoryJobTable } = {},
): JobAdapterV1<MemoryJobRef> {
  const parsed = memoryJobsOptionsSchema.safeParse(options);
  if (!parsed.success) throw configErrorFromIssues(parsed.error);
  const { apiKey } = parsed.data;
  const table = (extras.table ?? new MemoryJobTable(parsed.data.pollsToFinish, apiKey)).withKey(apiKey);
  return {
    specificationVersion: "v1",
    kind: "memory-jobs",
    tools: [runJobTool(parsed.data.toolName, table)],
    refSchema: memoryJobRefSchema,
    // Declared, so the server redacts it from every result, message, error and log entry.
    secrets: apiKey ? [apiKey] : [],
    pollIntervalMs: 500,
    retentionMs: null,
    doGetStatus: async (ref, context) => toSnapshot(ref, table.read(ref.jobId, context.signal)),
    doRespond: async (ref, responses: Record<string, ElicitationResponse>, context) => {
      const response = responses[approvalKey(ref)];
      // A dismissed form ("cancel") leaves the question outstanding.
      if (!response || response.action === "cancel") return;
      table.approve(ref.jobId, response.action === "accept" && response.content?.["approve"] === true, context.signal);
    },
    doCancel: async (ref, context) => table.cancel(ref.jobId, context.signal),
  };
}

function toSnapshot(ref: MemoryJobRef, job: MemoryJob): JobSnapshot {
  const { status, isError } = mapMemoryJobsStatus(job.state);
  const message = `Job ${ref.jobId} is ${job.state.replaceAll("_", " ")}`;
  const snapshot: JobSnapshot = { status, rawStatus: job.state, message, updatedAt: new Date().toISOString() };
  if (status === "completed")
    return { ...snapshot, result: { content: [{ type: "text", text: message }], isError: isError === true } };
  if (status !== "input_required") return snapshot;
  const question: InputRequest = {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Approve job ${ref.jobId}?`,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", default: false } },
        required: ["approve"],
      },
    },
  };
  return { ...snapshot, inputRequests: { [approvalKey(ref)]: question } };
}

/** One question per job, ever: the key is the job's id, an upstream fact. */
function approvalKey(ref: MemoryJobRef): string {
  return `approve-${ref.jobId}`;
}
