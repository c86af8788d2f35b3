import type { Dispatcher } from "undici";
import {
  AdapterConfigError,
  JobNotFoundError,
  type AdapterContext,
  type ElicitationResponse,
  type JobAdapterV1,
  type JobSnapshot,
  type JobTool,
  type StartedJob,
} from "@jobtasks/core";
import { resolveAuth } from "./auth-headers.js";
import { buildSnapshot } from "./build-snapshot.js";
import { cancelJob } from "./cancel-job.js";
import { deliverAnswers } from "./deliver-answers.js";
import { createHttpClient, type HttpResponse } from "./http-client.js";
import { buildInputSchema, buildOutputSchema } from "./input-schema.js";
import { mapStatus, type StatusReading } from "./map-rest-status.js";
import { performRequest, type RequestEnvironment } from "./rest-api.js";
import { minimumPollIntervalMs, pollIntervalFor } from "./poll-interval.js";
import { redactError, withRedactedErrors } from "./redact-error.js";
import { formatOptionsIssues, restOptionsSchema, type ResolvedRestOptions, type RestOptions } from "./rest-options.js";
import { submitJob } from "./submit-job.js";

/**
 * The job reference sealed into the task id: the job id (or the status URL, as a path when it is on
 * baseUrl's origin), when the job was started (the polling back-off and the 404 grace window are derived
 * from it) and, for a tool with an outputSchema, the tool's name.
 */
export type RestJobReference = {
  id: string;
  createdAt: number;
  /** The tool that started the job, when it declares an outputSchema (results are checked against it). */
  tool?: string;
};

export interface RestAdapterRuntime {
  /** undici dispatcher for every request (a MockAgent in tests). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** Where `*Env` secrets are read from. Default: process.env. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Clock, for tests. Default: Date.now. */
  now?: () => number;
}

function parseOptions(options: RestOptions | ResolvedRestOptions): ResolvedRestOptions {
  const parsed = restOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new AdapterConfigError(first?.path.join(".") || "options", formatOptionsIssues(parsed.error), { cause: parsed.error });
}

/** Build a REST adapter from a declarative config (a preset plus what it cannot know, or a full config). */
export function restAdapter(options: RestOptions | ResolvedRestOptions, runtime: RestAdapterRuntime = {}): JobAdapterV1<RestJobReference> {
  const config = parseOptions(options);
  const now = runtime.now ?? Date.now;
  const auth = resolveAuth(config.auth, runtime.environment ?? process.env);
  const baseUrl = new URL(config.baseUrl);
  const allowedOrigins = new Set(config.allowedOrigins);
  const environment: RequestEnvironment = {
    client: createHttpClient({
      ...(runtime.dispatcher ? { dispatcher: runtime.dispatcher } : {}),
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      maxRedirects: config.maxRedirects,
      fixedHeaders: Object.fromEntries(Object.entries(config.headers).map(([name, value]) => [name.toLowerCase(), value])),
      credentialHeaders: auth.headers,
      credentialOrigins: new Set([baseUrl.origin, ...allowedOrigins]),
      redirectOrigins: new Set([baseUrl.origin, ...allowedOrigins, ...config.allowedRedirectOrigins]),
    }),
    policy: { baseUrl, allowedOrigins },
    secrets: auth.secrets,
  };

  /** The status request and what it says, before any grace window or result is considered. */
  async function requestStatus(reference: RestJobReference, context: AdapterContext): Promise<{ response: HttpResponse; reading: StatusReading }> {
    const job = { id: reference.id };
    const response = await performRequest(
      environment,
      {
        purpose: "status",
        options: { url: config.status.url ?? "{{job.id}}" },
        defaultMethod: "GET",
        defaultAccepted: [200],
        passThrough: Object.keys(config.status.http).map(Number),
        context: { job },
        valuesFrom: "upstream",
        logger: context.logger,
      },
      context.signal,
    );
    return { response, reading: mapStatus(config.status, response.status, response.body) };
  }

  async function readStatus(reference: RestJobReference, context: AdapterContext): Promise<{ response: HttpResponse; snapshot: JobSnapshot }> {
    const job = { id: reference.id };
    const { response, reading } = await requestStatus(reference, context);
    const ageMs = now() - reference.createdAt;
    if (reading.gone && ageMs < config.status.goneGraceMs) {
      // Just submitted: an eventually consistent upstream may not list the job yet. Ask again soon.
      const snapshot: JobSnapshot = {
        status: "working",
        rawStatus: reading.rawStatus,
        message: `The job is not visible upstream yet (${reading.rawStatus})`,
        pollIntervalMs: pollIntervalFor(config.polling, ageMs, response.retryAfterMs),
      };
      return { response, snapshot };
    }
    if (reading.gone) throw new JobNotFoundError(`The upstream no longer knows this job (${reading.rawStatus})`);
    let resultBody: unknown;
    if (reading.status === "completed" && !reading.isError && config.result.url) {
      const resultResponse = await performRequest(
        environment,
        {
          purpose: "result",
          options: { url: config.result.url },
          defaultMethod: "GET",
          defaultAccepted: [200],
          context: { job, body: response.body },
          valuesFrom: "upstream",
          logger: context.logger,
        },
        context.signal,
      );
      resultBody = resultResponse.body;
    }
    const pollIntervalMs = pollIntervalFor(config.polling, ageMs, response.retryAfterMs);
    const snapshot = buildSnapshot(config, { reading, body: response.body, resultBody, job, pollIntervalMs, secrets: auth.secrets, outputSchema: outputSchemaFor(reference) });
    return { response, snapshot };
  }

  const outputSchemas = new Map(config.tools.map((tool, index) => [tool.name, buildOutputSchema(tool, `tools.${index}.outputSchema`)]));
  /** The output schema a job's result is held to: its tool's, or the only tool's for a reference without one. */
  function outputSchemaFor(reference: RestJobReference) {
    const name = reference.tool ?? (config.tools.length === 1 ? config.tools[0]!.name : undefined);
    return name === undefined ? undefined : outputSchemas.get(name);
  }

  const tools: JobTool<RestJobReference>[] = config.tools.map((tool, index) => ({
    name: `${config.toolNamePrefix}${tool.name}`,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: buildInputSchema(tool, `tools.${index}.${tool.inputSchema ? "inputSchema" : "input"}`),
    ...(tool.outputSchema ? { outputSchema: outputSchemas.get(tool.name)! } : {}),
    ...(tool.synchronousWaitMs !== undefined ? { synchronousWaitMs: tool.synchronousWaitMs } : {}),
    doStart: (input: unknown, context: AdapterContext) => withRedactedErrors(auth.secrets, () => startJob(tool, input, context)),
  }));

  async function startJob(tool: ResolvedRestOptions["tools"][number], input: unknown, context: AdapterContext): Promise<StartedJob<RestJobReference>> {
    const started = await submitJob(environment, config, tool, input, context);
    const reference: RestJobReference = { id: started.jobId, createdAt: now(), ...(tool.outputSchema ? { tool: tool.name } : {}) };
    if (!tool.submit.firstSnapshot || started.body === undefined) return { ref: reference };
    const reading = mapStatus(config.status, undefined, started.body);
    // A completed job whose result lives behind a follow-up GET is left to the first status read.
    if (reading.gone || (reading.status === "completed" && config.result.url)) return { ref: reference };
    try {
      const snapshot = buildSnapshot(config, {
        reading,
        body: started.body,
        job: { id: reference.id },
        pollIntervalMs: pollIntervalFor(config.polling, 0, started.retryAfterMs),
        secrets: auth.secrets,
        outputSchema: outputSchemaFor(reference),
      });
      return { ref: reference, snapshot };
    } catch (error) {
      // The job exists: hand out its task, and let the first status read report what this could not.
      context.logger.warn({ tool: tool.name, err: redactError(error, auth.secrets) }, "the submit answer could not be read as a first status; the status read will report");
      return { ref: reference };
    }
  }

  const adapter: JobAdapterV1<RestJobReference> = {
    specificationVersion: "v1",
    kind: "rest",
    tools,
    pollIntervalMs: Math.max(minimumPollIntervalMs, config.polling.initialIntervalMs),
    retentionMs: config.retentionMs,
    doGetStatus: (reference, context) => withRedactedErrors(auth.secrets, async () => (await readStatus(reference, context)).snapshot),
  };

  const inputRequired = config.inputRequired;
  if (inputRequired) {
    adapter.doRespond = (reference: RestJobReference, responses: Record<string, ElicitationResponse>, context: AdapterContext) =>
      withRedactedErrors(auth.secrets, async () => {
        // Read the job first: the answer may have been overtaken (answered elsewhere, job moved on), and
        // the respond templates may use the current status body.
        const { response, snapshot } = await readStatus(reference, context);
        await deliverAnswers(environment, inputRequired, { job: { id: reference.id }, response, snapshot }, responses, context);
      });
  }

  const cancel = config.cancel;
  if (cancel) {
    adapter.doCancel = (reference: RestJobReference, context: AdapterContext) =>
      withRedactedErrors(auth.secrets, () =>
        cancelJob(
          environment,
          cancel,
          {
            job: { id: reference.id },
            readStatus: () => requestStatus(reference, context),
            justSubmitted: now() - reference.createdAt < config.status.goneGraceMs,
          },
          context,
        ),
      );
  }
  return adapter;
}
