import { z } from "@jobtasks/core";
import type {
  ElicitationResponse,
  InputRequest,
  JobAdapterV1,
  JobSnapshot,
  JobTool,
  RespondOutcome,
} from "@jobtasks/core";

/**
 * An in-memory job system whose jobs do exactly what the test says, when it says it. The protocol-rule
 * tests use it so they need no timing and no network: a test starts a job through the server, then moves
 * it along (`controller.update`), breaks it (`controller.failReads`), and counts the calls the server made.
 */

export type ScriptedJobRef = { jobId: string };

export interface ScriptedJob {
  jobId: string;
  input: ScriptedJobInput;
  /** What the next doGetStatus answers, unless `readError` is set. */
  snapshot: JobSnapshot;
  /** Thrown by every doGetStatus while set (outages, a job that vanished). */
  readError: Error | undefined;
  /** Every doRespond call, in order. */
  responses: Array<Record<string, ElicitationResponse>>;
  cancelRequested: boolean;
}

export interface ScriptedCallCounts {
  start: number;
  getStatus: number;
  respond: number;
  cancel: number;
}

export interface ScriptedAdapterOptions {
  /** Tool name. Default "scripted_job". */
  toolName?: string;
  /** Becomes ttlMs. Default null (forever). */
  retentionMs?: number | null;
  /** Default 50. */
  pollIntervalMs?: number;
  /** Offer doRespond. Default true. */
  canRespond?: boolean;
  /** Offer doCancel. Default true. */
  canCancel?: boolean;
  /**
   * What doRespond does to the job after recording the answers. Default: nothing (the test moves the job
   * itself), which is how a slow upstream behaves. What it returns is doRespond's outcome.
   */
  onRespond?: (job: ScriptedJob, responses: Record<string, ElicitationResponse>) => void | RespondOutcome;
  /** What doCancel does after recording the request. Default: nothing (cancellation is cooperative). */
  onCancel?: (job: ScriptedJob) => void;
  /** Let clients without the tasks extension call the tool, waiting this long for the result. */
  synchronousWaitMs?: number;
}

export interface ScriptedJobInput {
  label: string;
  /** The first snapshot's status. */
  startAs: "working" | "input_required" | "completed";
}

export const scriptedJobInputSchema = z
  .object({
    label: z.string().min(1).max(64).default("job"),
    startAs: z.enum(["working", "input_required", "completed"]).default("working"),
  })
  .strict();

export interface ScriptedAdapter {
  adapter: JobAdapterV1<ScriptedJobRef>;
  jobs: Map<string, ScriptedJob>;
  calls: ScriptedCallCounts;
  /** When each doGetStatus was called (Date.now()), in order: spacing is checked on these, not on a stopwatch. */
  readTimes: number[];
  /** The one job started so far; throws when there is not exactly one (keeps tests honest). */
  onlyJob(): ScriptedJob;
  /** The most recently started job. */
  lastJob(): ScriptedJob;
  /** Replace the job's next snapshot. */
  update(job: ScriptedJob, snapshot: JobSnapshot): void;
  /** Make every status read of the job throw, until called again with undefined. */
  failReads(job: ScriptedJob, error: Error | undefined): void;
  /** Make every doStart throw, until called again with undefined. */
  failStarts(error: Error | undefined): void;
}

/** A form elicitation as the demo and the GitHub adapter issue them: approve or reject, with a comment. */
export function approvalRequest(message = "Approve the deployment?"): InputRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve" }, comment: { type: "string", title: "Comment" } },
        required: ["approve"],
      },
    },
  };
}

export function workingSnapshot(message = "running"): JobSnapshot {
  return { status: "working", rawStatus: "running", message };
}

export function inputRequiredSnapshot(
  requests: Record<string, InputRequest>,
  message = "waiting for approval",
): JobSnapshot {
  return { status: "input_required", rawStatus: "waiting", message, inputRequests: requests };
}

export function completedSnapshot(text = "done", isError = false): JobSnapshot {
  return {
    status: "completed",
    rawStatus: isError ? "failure" : "success",
    message: isError ? "the job failed" : "the job succeeded",
    result: { content: [{ type: "text", text }], structuredContent: { text }, ...(isError ? { isError: true } : {}) },
  };
}

export function cancelledSnapshot(): JobSnapshot {
  return { status: "cancelled", rawStatus: "cancelled", message: "cancelled" };
}

export function createScriptedAdapter(options: ScriptedAdapterOptions = {}): ScriptedAdapter {
  const jobs = new Map<string, ScriptedJob>();
  const calls: ScriptedCallCounts = { start: 0, getStatus: 0, respond: 0, cancel: 0 };
  const readTimes: number[] = [];
  let started = 0;
  let startError: Error | undefined;

  const find = (ref: ScriptedJobRef): ScriptedJob => {
    const job = jobs.get(ref.jobId);
    // A real upstream that lost the job would say 404; the server must turn that into a failed task.
    if (!job) throw new Error(`scripted job ${ref.jobId} does not exist in this adapter instance`);
    return job;
  };

  const tool: JobTool<ScriptedJobRef, ScriptedJobInput> = {
    name: options.toolName ?? "scripted_job",
    description: "A job whose life the test scripts.",
    inputSchema: scriptedJobInputSchema,
    ...(options.synchronousWaitMs === undefined ? {} : { synchronousWaitMs: options.synchronousWaitMs }),
    async doStart(input) {
      calls.start += 1;
      if (startError) throw startError;
      started += 1;
      const jobId = `job-${started}`;
      const snapshot =
        input.startAs === "input_required"
          ? inputRequiredSnapshot({ [`${jobId}-approval-1`]: approvalRequest() })
          : input.startAs === "completed"
            ? completedSnapshot(`finished ${input.label}`)
            : workingSnapshot(`started ${input.label}`);
      const job: ScriptedJob = { jobId, input, snapshot, readError: undefined, responses: [], cancelRequested: false };
      jobs.set(jobId, job);
      // No first snapshot on purpose: the server must read the job before it answers tools/call.
      return { ref: { jobId } };
    },
  };

  const adapter: JobAdapterV1<ScriptedJobRef> = {
    specificationVersion: "v1",
    kind: "scripted",
    tools: [tool],
    pollIntervalMs: options.pollIntervalMs ?? 50,
    retentionMs: options.retentionMs ?? null,
    async doGetStatus(ref) {
      calls.getStatus += 1;
      readTimes.push(Date.now());
      const job = find(ref);
      if (job.readError) throw job.readError;
      return structuredClone(job.snapshot);
    },
  };
  if (options.canRespond ?? true) {
    adapter.doRespond = async (ref, responses) => {
      calls.respond += 1;
      const job = find(ref);
      job.responses.push(structuredClone(responses));
      return options.onRespond?.(job, responses);
    };
  }
  if (options.canCancel ?? true) {
    adapter.doCancel = async (ref) => {
      calls.cancel += 1;
      const job = find(ref);
      job.cancelRequested = true;
      options.onCancel?.(job);
    };
  }

  return {
    adapter,
    jobs,
    calls,
    readTimes,
    onlyJob() {
      if (jobs.size !== 1) throw new Error(`expected exactly one scripted job, found ${jobs.size}`);
      return [...jobs.values()][0]!;
    },
    lastJob() {
      const job = [...jobs.values()].at(-1);
      if (!job) throw new Error("no scripted job was started");
      return job;
    },
    update(job, snapshot) {
      job.snapshot = snapshot;
    },
    failReads(job, error) {
      job.readError = error;
    },
    failStarts(error) {
      startError = error;
    },
  };
}
