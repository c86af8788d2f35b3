import { z } from "@jobtasks/core";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { AnyJobAdapter, JobAdapterV1, JobSnapshot } from "@jobtasks/core";
import {
  TaskIdSealer,
  TaskService,
  createSilentLogger,
  type CreateTaskResult,
  type TaskServiceOptions,
} from "@jobtasks/server";

/**
 * The pieces every benchmark builds a TaskService from: a silent logger (logging is not what we measure),
 * a fresh secret, and adapters that answer from memory so that the server's own cost is what shows.
 */

export const benchPrincipal = "bench-agent";

export function createBenchService(
  adapters: Array<{ name: string; adapter: AnyJobAdapter }>,
  options: Partial<Omit<TaskServiceOptions, "adapters" | "sealer" | "logger">> = {},
  /** Replicas of one deployment share it (bench/replicas.ts); otherwise a fresh one. */
  secret = randomBytes(32).toString("base64url"),
): TaskService {
  return new TaskService({
    immediateRetries: 0,
    ...options,
    adapters,
    sealer: new TaskIdSealer({ secret, secretSource: "JOBTASKS_SECRET" }),
    logger: createSilentLogger(),
  });
}

/** A caller that never aborts; the benchmarks end their loops themselves. */
export function benchCaller() {
  return { principal: benchPrincipal, signal: new AbortController().signal };
}

/** Start a job through the service, as tools/call would, and return its task id. */
export async function startTask(
  service: TaskService,
  toolName: string,
  args: Record<string, unknown>,
): Promise<string> {
  const created = (await service.callTool(toolName, args, {
    ...benchCaller(),
    tasksDeclared: true,
  })) as CreateTaskResult;
  if (typeof created.taskId !== "string") throw new Error(`tools/call ${toolName} did not create a task`);
  return created.taskId;
}

export type StatelessJobRef = { jobId: number; finished: boolean };

/**
 * An adapter that keeps nothing: the job's whole state is in its ref, so any memory the process holds after
 * thousands of tasks belongs to the server, not to the adapter. It counts status reads, and can be given an
 * upstream latency so that concurrent reads overlap as they would against a real API.
 */
export interface StatelessAdapterOptions {
  /** Upstream latency of each status read. Default 0. */
  readLatencyMs?: number;
  /** The polling interval the adapter suggests. Default 2000. */
  pollIntervalMs?: number;
  /** Length of a log tail in a completed job's result text, like the GitHub and Batch adapters add. Default 0. */
  resultLogBytes?: number;
}

export function createStatelessAdapter(options: StatelessAdapterOptions = {}) {
  const counts = { getStatus: 0 };
  let nextJobId = 0;
  const readLatencyMs = options.readLatencyMs ?? 0;
  const adapter: JobAdapterV1<StatelessJobRef> = {
    specificationVersion: "v1",
    kind: "stateless-bench",
    pollIntervalMs: options.pollIntervalMs ?? 2000,
    retentionMs: null,
    tools: [
      {
        name: "bench_job",
        description: "A job whose state is its reference.",
        inputSchema: z.object({ finished: z.boolean().default(false) }).strict(),
        async doStart(input: { finished: boolean }) {
          nextJobId += 1;
          return { ref: { jobId: nextJobId, finished: input.finished } };
        },
      },
    ],
    async doGetStatus(ref): Promise<JobSnapshot> {
      counts.getStatus += 1;
      if (readLatencyMs > 0) await sleep(readLatencyMs);
      if (ref.finished) {
        // A fresh string per read, as JSON.parse of an upstream response would give.
        const logTail = options.resultLogBytes
          ? `\n${Buffer.alloc(options.resultLogBytes, `step ${ref.jobId} ok\n`).toString("latin1")}`
          : "";
        return {
          status: "completed",
          rawStatus: "success",
          message: `job ${ref.jobId} succeeded`,
          result: {
            content: [{ type: "text", text: `job ${ref.jobId} output${logTail}` }],
            structuredContent: { jobId: ref.jobId },
          },
        };
      }
      return { status: "working", rawStatus: "running", message: `job ${ref.jobId} running` };
    },
  };
  return { adapter, counts };
}
