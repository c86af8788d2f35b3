import type { z } from "@jobtasks/core";
import type { AdapterContext, JobTool, StartedJob } from "@jobtasks/core";
import { buildSnapshot } from "./build-snapshot.js";
import { buildInputSchema } from "./input-schema.js";
import { mapStatus } from "./map-rest-status.js";
import { pollIntervalFor } from "./poll-interval.js";
import type { RestJobRef } from "./rest-job-ref.js";
import type { RequestEnvironment } from "./rest-api.js";
import type { ResolvedRestOptions } from "./rest-options.js";
import { submitJob } from "./submit-job.js";
import type { ToolOptions } from "./tool-options-schema.js";

/**
 * The tool of one `tools[]` entry. A REST adapter's tools come from its config, so this one file makes
 * each of them: its name, description and input schema from the entry, and a doStart that submits the
 * job and, when the entry asks for it, reads the submit answer as the first status.
 */

export interface StartJobToolSetup {
  environment: RequestEnvironment;
  config: ResolvedRestOptions;
  now: () => number;
  /** The tool's outputSchema converted to zod, when it declares one. */
  outputSchema: z.ZodType | undefined;
}

export function startJobTool(tool: ToolOptions, index: number, setup: StartJobToolSetup): JobTool<RestJobRef> {
  const { environment, config, now, outputSchema } = setup;

  async function startJob(input: unknown, context: AdapterContext): Promise<StartedJob<RestJobRef>> {
    const started = await submitJob(environment, config, tool, input, context);
    const ref: RestJobRef = {
      id: started.jobId,
      createdAt: now(),
      ...(tool.outputSchema ? { tool: tool.name } : {}),
    };
    if (!tool.submit.firstSnapshot || started.body === undefined) return { ref };
    const reading = mapStatus(config.status, undefined, started.body);
    // A completed job whose result lives behind a follow-up GET is left to the first status read.
    if (reading.gone || (reading.status === "completed" && config.result.url)) return { ref };
    try {
      const snapshot = buildSnapshot(config, {
        reading,
        body: started.body,
        job: { id: ref.id },
        pollIntervalMs: pollIntervalFor(config.polling, 0, started.retryAfterMs),
        outputSchema,
      });
      return { ref, snapshot };
    } catch (error) {
      // The job exists: hand out its task, and let the first status read report what this could not.
      context.logger.warn(
        { tool: tool.name, err: error },
        "the submit answer could not be read as a first status; the status read will report",
      );
      return { ref };
    }
  }

  return {
    name: `${config.toolNamePrefix}${tool.name}`,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: buildInputSchema(tool, `tools.${index}.${tool.inputSchema ? "inputSchema" : "input"}`),
    ...(outputSchema ? { outputSchema } : {}),
    ...(tool.synchronousWaitMs !== undefined ? { synchronousWaitMs: tool.synchronousWaitMs } : {}),
    doStart: startJob,
  };
}
