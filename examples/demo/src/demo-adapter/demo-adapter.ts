import { AdapterConfigError, configErrorFromIssues, type JobAdapterV1 } from "@jobtasks/core";
import { createDemoApi, demoApiEndpoint } from "./demo-api.js";
import { demoAdapterOptionsSchema, type DemoAdapterConfig } from "./demo-options.js";
import { readApprovalDecision } from "./demo-approval-request.js";
import { mapDemoStatus } from "./map-demo-status.js";
import { demoPipelineTool } from "./demo-pipeline-tool.js";
import { demoJobRefSchema, type DemoJobRef } from "./demo-job-ref.js";

/** The demo API keeps a job for 24 h after it finishes; the task may be forgotten from then on. */
const demoRetentionMs = 24 * 60 * 60 * 1000;

/**
 * Options of `demoAdapter(options)`: the config-file options (demo-options.ts documents each one and its
 * default) plus the programmatic extra a config file cannot carry.
 */
export type DemoAdapterOptions = DemoAdapterConfig & {
  /** HTTP transport; tests inject one. Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
};

/**
 * An adapter over the demo job API, built exactly as an adapter over a real CI service: HTTP through an
 * injectable fetch, a minimal response schema, one status mapping, approvals as form elicitations.
 * Options are validated here, so a mistake shows at start-up with the option's name.
 */
export function demoAdapter(options: DemoAdapterOptions): JobAdapterV1<DemoJobRef> {
  // `?? {}`: a JavaScript caller that passes nothing is told which option is required, not a TypeError.
  const { fetch: fetchFunction = globalThis.fetch, ...configOptions } = options ?? {};
  const parsed = demoAdapterOptionsSchema.safeParse(configOptions);
  if (!parsed.success) throw configErrorFromIssues(parsed.error);
  if (typeof fetchFunction !== "function") throw new AdapterConfigError("fetch", "must be a fetch-compatible function");
  const config = parsed.data;
  const endpoint = demoApiEndpoint(config.baseUrl);
  const api = createDemoApi(endpoint, fetchFunction);

  return {
    specificationVersion: "v1",
    kind: "demo",
    tools: [demoPipelineTool(config.toolName, api)],
    // The server checks every ref against it before the methods below see one.
    refSchema: demoJobRefSchema,
    // Declared, so the server removes the URL's password (and the Basic header made of it) from every
    // result, message, error and log entry: an upstream error body, a log line, an approval comment.
    secrets: endpoint.secrets,
    pollIntervalMs: config.pollIntervalMs,
    retentionMs: demoRetentionMs,

    async doGetStatus(ref, context) {
      return mapDemoStatus(await api.getJob(ref.jobId, context.signal));
    },

    async doRespond(ref, responses, context) {
      for (const [approvalId, response] of Object.entries(responses)) {
        const decision = readApprovalDecision(response);
        const delivered = await api.answerApproval(ref.jobId, { approvalId, ...decision }, context.signal);
        // 409: the approval was answered already (another client, a retried request) or has passed. The
        // job's own status tells the outcome; there is nothing to fail for.
        if (!delivered) context.logger.debug({ jobId: ref.jobId, approvalId }, "approval already answered");
      }
    },

    async doCancel(ref, context) {
      const accepted = await api.cancelJob(ref.jobId, context.signal);
      // 409: the job finished before the cancel arrived; the task will show how it ended.
      if (!accepted) context.logger.debug({ jobId: ref.jobId }, "demo job already finished, nothing to cancel");
    },
  };
}
