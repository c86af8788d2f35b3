import type { JobAdapterV1 } from "@jobtasks/core";
import { createDemoApiTransport } from "./demo-api-transport.js";
import { resolveDemoAdapterOptions, type DemoAdapterOptions } from "./demo-adapter-options.js";
import { readApprovalDecision } from "./demo-approval-request.js";
import { mapDemoJobStatus } from "./map-demo-job-status.js";
import { demoPipelineTool, type DemoJobRef } from "./demo-pipeline-tool.js";

/** The demo API keeps a job for 24 h after it finishes; the task may be forgotten from then on. */
const demoRetentionMs = 24 * 60 * 60 * 1000;

/**
 * An adapter over the demo job API, built exactly as an adapter over a real CI service: HTTP through an
 * injectable fetch, a minimal response schema, one status mapping, approvals as form elicitations.
 */
export function demoAdapter(options: DemoAdapterOptions): JobAdapterV1<DemoJobRef> {
  const resolved = resolveDemoAdapterOptions(options);
  const transport = createDemoApiTransport(resolved);

  return {
    specificationVersion: "v1",
    kind: "demo",
    tools: [demoPipelineTool(resolved.toolName, transport, resolved.secrets)],
    pollIntervalMs: resolved.pollIntervalMs,
    retentionMs: demoRetentionMs,

    async doGetStatus(ref, context) {
      return mapDemoJobStatus(await transport.getJob(ref.jobId, context.signal), resolved.secrets);
    },

    async doRespond(ref, responses, context) {
      for (const [approvalId, response] of Object.entries(responses)) {
        const decision = readApprovalDecision(response);
        const delivered = await transport.answerApproval(ref.jobId, { approvalId, ...decision }, context.signal);
        // 409: the approval was answered already (another client, a retried request) or has passed. The
        // job's own status tells the outcome; there is nothing to fail for.
        if (!delivered) context.logger.debug({ jobId: ref.jobId, approvalId }, "approval already answered");
      }
    },

    async doCancel(ref, context) {
      const accepted = await transport.cancelJob(ref.jobId, context.signal);
      // 409: the job finished before the cancel arrived; the task will show how it ended.
      if (!accepted) context.logger.debug({ jobId: ref.jobId }, "demo job already finished, nothing to cancel");
    },
  };
}
