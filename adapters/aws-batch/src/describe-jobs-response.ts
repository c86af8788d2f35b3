import type { JobDetail } from "@aws-sdk/client-batch";
import { UpstreamError } from "@jobtasks/core";
import { z } from "zod";

/**
 * The least a DescribeJobs answer must hold to be read at all: a `jobs` array of objects that each carry a
 * job id. The SDK does not check the shape of an answer, and a proxy or emulator (the `endpoint` option) can
 * answer 200 with anything. Other fields stay as sent: the mapping treats every status as open and every
 * time as optional.
 */
const describeJobsResponseSchema = z.looseObject({
  jobs: z.array(z.looseObject({ jobId: z.string().min(1) })),
});

/** Why an answer is unusable, as a retryable error: nothing in it says anything about any of the jobs. */
export function unreadableDescribeJobsError(operation: string, detail: string, cause?: unknown): UpstreamError {
  return new UpstreamError(`AWS Batch ${operation} gave an unreadable answer (${detail}); it will be read again`, {
    isRetryable: true,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * The jobs of a DescribeJobs answer. Only an id missing from a well-formed `jobs` array means "unknown or
 * expired"; an answer without that array (an empty body, `{}`) or with entries that are not jobs is an
 * unreadable answer, retryable, so it never ends the tasks it was meant to report on.
 */
export function jobsOfDescribeJobsResponse(operation: string, response: unknown): JobDetail[] {
  const parsed = describeJobsResponseSchema.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    throw unreadableDescribeJobsError(operation, `${where}: ${issue?.message ?? "unexpected shape"}`, parsed.error);
  }
  // The checked part only; the rest is read field by field, each as optional, by the mapping.
  return parsed.data.jobs as unknown as JobDetail[];
}
