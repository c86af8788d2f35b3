import type { ContainerOverrides, SubmitJobRequest } from "@aws-sdk/client-batch";
import type { AdapterContext, AdapterLogger, StartedJob } from "@jobtasks/core";
import type { BatchJobRef } from "./batch-job-ref.js";
import { cancelReasonPrefix } from "./map-aws-batch-status.js";
import {
  correlationTagKey,
  jobNameFor,
  newCorrelationId,
  type SubmitDependencies,
  type SubmittedJob,
  submitBatchJob,
} from "./submit-batch-job.js";
import type { SubmitInput } from "./submit-input-schemas.js";

/** What a tool's configuration fixes, before the agent's input is added. */
export interface SubmissionBase {
  jobQueue: string;
  jobDefinition: string;
  jobNamePrefix: string;
  parameterDefaults?: Record<string, string>;
  retryAttempts?: number;
  timeoutSeconds?: number;
  shareIdentifier?: string;
  tags: Record<string, string>;
}

function containerOverridesOf(input: SubmitInput): ContainerOverrides | undefined {
  const overrides: ContainerOverrides = {};
  if (input.command) overrides.command = input.command;
  const environment = Object.entries(input.environment ?? {}).filter(([, value]) => value !== undefined);
  if (environment.length > 0) overrides.environment = environment.map(([name, value]) => ({ name, value }));
  const resources: NonNullable<ContainerOverrides["resourceRequirements"]> = [];
  if (input.vcpus !== undefined) resources.push({ type: "VCPU", value: String(input.vcpus) });
  if (input.memoryMiB !== undefined) resources.push({ type: "MEMORY", value: String(input.memoryMiB) });
  if (resources.length > 0) overrides.resourceRequirements = resources;
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}

/** The SubmitJob request for one tool call; input was validated by the tool's schema already. */
export function buildSubmitRequest(
  base: SubmissionBase,
  input: SubmitInput,
  correlationId: string,
): SubmitJobRequest & { jobName: string; jobQueue: string } {
  const parameters = { ...base.parameterDefaults, ...input.parameters };
  const containerOverrides = containerOverridesOf(input);
  return {
    jobName: jobNameFor(input.jobName ?? base.jobNamePrefix, correlationId),
    jobQueue: base.jobQueue,
    jobDefinition: base.jobDefinition,
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
    ...(containerOverrides ? { containerOverrides } : {}),
    ...(input.arraySize !== undefined ? { arrayProperties: { size: input.arraySize } } : {}),
    ...(base.retryAttempts !== undefined ? { retryStrategy: { attempts: base.retryAttempts } } : {}),
    ...(base.timeoutSeconds !== undefined ? { timeout: { attemptDurationSeconds: base.timeoutSeconds } } : {}),
    ...(base.shareIdentifier !== undefined ? { shareIdentifier: base.shareIdentifier } : {}),
    tags: { ...base.tags, [correlationTagKey]: correlationId },
  };
}

/**
 * Submit one job for one tool call. The correlation id is made here, once per call, so retries inside this
 * call reuse it and can find a job whose SubmitJob answer was lost. A client that leaves once SubmitJob is
 * on its way does not cut it short (the job may exist already): the submit finishes, and the job it
 * created is terminated, since nobody will ever hold its task id. This is the abandoned-start shape, as in
 * adapters/github-actions/src/start-outliving-client.ts; generalise it on a third use.
 */
export async function startSubmission(
  base: SubmissionBase,
  input: SubmitInput,
  dependencies: SubmitDependencies,
  context: AdapterContext,
): Promise<StartedJob<BatchJobRef>> {
  const request = buildSubmitRequest(base, input, newCorrelationId());
  let submitted;
  try {
    submitted = await submitBatchJob(request, dependencies, context.signal);
  } catch (error) {
    if (context.signal.aborted && error !== context.signal.reason) {
      // The message says whether a job may exist, and under which name to look for it.
      const reason = error instanceof Error ? error.message : String(error);
      context.logger.warn(
        { jobName: request.jobName, error: reason },
        "the client left while SubmitJob was in flight, and the submit failed",
      );
    }
    throw error;
  }
  if (context.signal.aborted) {
    await terminateAbandonedJob(submitted, dependencies, context.logger);
    throw context.signal.reason;
  }
  if (submitted.recovered) {
    context.logger.info(
      { jobId: submitted.jobId, jobName: submitted.jobName },
      "found the job of a SubmitJob whose answer was lost",
    );
  }
  const arrayNote = input.arraySize !== undefined ? ` (array of ${input.arraySize})` : "";
  return {
    ref: { jobId: submitted.jobId, submittedAt: Date.now() },
    snapshot: { status: "working", rawStatus: "SUBMITTED", message: `SUBMITTED: ${submitted.jobName}${arrayNote}` },
  };
}

/** Shown as the job's statusReason; the status mapping reads the prefix as a cancel. */
export const abandonedJobReason = `${cancelReasonPrefix}, the client left before the task was handed out`;

/**
 * Terminate a job whose client left while SubmitJob was in flight: nobody will ever hold its task id, so
 * left alone it would run (and cost) unseen. Not bound to the client's signal, which has already fired;
 * each call is bounded by the client's request timeout and the retry policy. Never throws: the caller
 * reports the abort either way, and the log says what became of the job.
 */
async function terminateAbandonedJob(
  submitted: SubmittedJob,
  dependencies: SubmitDependencies,
  logger: AdapterLogger,
): Promise<void> {
  const fields = { jobId: submitted.jobId, jobName: submitted.jobName };
  try {
    await dependencies.api.terminateJob(submitted.jobId, abandonedJobReason, { retry: dependencies.policy });
    logger.info(fields, "the client left while SubmitJob was in flight; terminated the job it created");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      { ...fields, error: reason },
      "the client left while SubmitJob was in flight; the job it created could not be terminated and may still run",
    );
  }
}
