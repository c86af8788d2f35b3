import { JobNotFoundError, UpstreamError, type JobAdapterV1, type JobSnapshot, z } from "@jobtasks/core";

/**
 * A small in-memory "CI" and an adapter over it, written the way a real adapter is (a factory, a token, a
 * transport that honours AbortSignal, one mapping function), so the suite's wiring can be tested end to end.
 */

export interface FakeCiJob {
  status: string;
  answered?: boolean;
  cancelRequested?: boolean;
}

export function createFakeCi(token: string) {
  const jobs = new Map<string, FakeCiJob>();
  let nextId = 1;
  let outage = false;
  return {
    jobs,
    setOutage(value: boolean) {
      outage = value;
    },
    add(status: string): string {
      const id = `run-${nextId++}`;
      jobs.set(id, { status });
      return id;
    },
    /** The "HTTP call": checks the token and the signal like a real transport would. */
    async request(authorization: string, jobId: string, signal: AbortSignal): Promise<FakeCiJob | undefined> {
      signal.throwIfAborted();
      await new Promise((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      if (authorization !== `Bearer ${token}`) throw new Error("401 from fake CI");
      if (outage) throw Object.assign(new Error("503 from fake CI"), { status: 503 });
      return jobs.get(jobId);
    },
  };
}

export type FakeCi = ReturnType<typeof createFakeCi>;

export function mapFakeCiStatus(job: FakeCiJob): JobSnapshot {
  switch (job.status) {
    case "pending":
    case "running":
      return { status: "working", rawStatus: job.status, message: job.status };
    case "awaiting_input":
      return {
        status: "input_required",
        rawStatus: job.status,
        inputRequests: {
          "gate-1": {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Continue?",
              requestedSchema: { type: "object", properties: { approve: { type: "boolean" } }, required: ["approve"] },
            },
          },
        },
      };
    case "success":
      return { status: "completed", rawStatus: job.status, result: { content: [{ type: "text", text: "ok" }] } };
    case "failure":
      return {
        status: "completed",
        rawStatus: job.status,
        result: { content: [{ type: "text", text: "tests failed" }], isError: true },
      };
    case "expired":
      return { status: "failed", rawStatus: job.status, error: { code: -32603, message: "the run expired upstream" } };
    case "cancelled":
      return { status: "cancelled", rawStatus: job.status };
    default:
      return { status: "working", rawStatus: job.status, message: `upstream status ${job.status}` };
  }
}

export function fakeCiAdapter(options: { ci: FakeCi; token: string }): JobAdapterV1<{ runId: string }> {
  const authorization = `Bearer ${options.token}`;
  async function read(runId: string, signal: AbortSignal): Promise<FakeCiJob> {
    let job: FakeCiJob | undefined;
    try {
      job = await options.ci.request(authorization, runId, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const status = (error as { status?: number }).status;
      throw new UpstreamError(`fake CI answered ${status ?? "an error"}`, { httpStatus: status, cause: error });
    }
    if (!job) throw new JobNotFoundError(`run ${runId} not found`);
    return job;
  }
  return {
    specificationVersion: "v1",
    kind: "fake-ci",
    pollIntervalMs: 1000,
    retentionMs: null,
    refSchema: z.strictObject({ runId: z.string().regex(/^run-\d{1,9}$/) }),
    tools: [
      {
        name: "fake_run",
        description: "Start a fake CI run.",
        inputSchema: z.strictObject({ branch: z.string().default("main").describe("Branch to build") }),
        async doStart(_input, context) {
          const runId = options.ci.add("pending");
          return { ref: { runId }, snapshot: mapFakeCiStatus(await read(runId, context.signal)) };
        },
      },
    ],
    async doGetStatus(ref, context) {
      return mapFakeCiStatus(await read(ref.runId, context.signal));
    },
    async doRespond(ref, responses, context) {
      const job = await read(ref.runId, context.signal);
      // A dismissed form decides nothing: the gate goes on waiting.
      if (responses["gate-1"] && responses["gate-1"].action !== "cancel") {
        job.answered = true;
        job.status = "running";
      }
    },
    async doCancel(ref, context) {
      (await read(ref.runId, context.signal)).cancelRequested = true;
    },
  };
}
