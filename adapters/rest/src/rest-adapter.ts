import type { Dispatcher } from "undici";
import {
  AdapterConfigError,
  configErrorFromIssues,
  type AdapterContext,
  type ElicitationResponse,
  type JobAdapterV1,
} from "@jobtasks/core";
import { readSecret, resolveAuth } from "./auth-headers.js";
import { cancelJob } from "./cancel-job.js";
import { deliverAnswers } from "./deliver-answers.js";
import { minimumEventSecretLength } from "./events-options-schema.js";
import { createHttpClient } from "./http-client.js";
import { buildOutputSchema } from "./input-schema.js";
import { minimumPollIntervalMs } from "./poll-interval.js";
import { createStatusReader } from "./read-job-status.js";
import type { RequestEnvironment } from "./rest-api.js";
import { restEvents } from "./rest-events.js";
import { restJobRefSchema, type RestJobRef } from "./rest-job-ref.js";
import { restOptionsSchema, type ResolvedRestOptions, type RestOptions } from "./rest-options.js";
import { startJobTool } from "./start-job-tool.js";

export interface RestAdapterRuntime {
  /** undici dispatcher for every request (a MockAgent in tests). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** Where `*Env` secrets are read from. Default: process.env. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Clock, for tests. Default: Date.now. */
  now?: () => number;
}

function parseOptions(options: RestOptions | ResolvedRestOptions): ResolvedRestOptions {
  // Parsed once per instance: zod's compiled fast path would cost more to build than it saves.
  const parsed = restOptionsSchema.safeParse(options, { jitless: true });
  if (parsed.success) return parsed.data;
  throw configErrorFromIssues(parsed.error);
}

/** Build a REST adapter from a declarative config (a preset plus what it cannot know, or a full config). */
export function restAdapter(
  options: RestOptions | ResolvedRestOptions,
  runtime: RestAdapterRuntime = {},
): JobAdapterV1<RestJobRef> {
  const config = parseOptions(options);
  const now = runtime.now ?? Date.now;
  const environmentVariables = runtime.environment ?? process.env;
  const auth = resolveAuth(config.auth, environmentVariables);
  const eventSecret = config.events ? readEventSecret(config.events.verification, environmentVariables) : undefined;
  const baseUrl = new URL(config.baseUrl);
  const allowedOrigins = new Set(config.allowedOrigins);
  const environment: RequestEnvironment = {
    client: createHttpClient({
      ...(runtime.dispatcher ? { dispatcher: runtime.dispatcher } : {}),
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      maxRedirects: config.maxRedirects,
      fixedHeaders: Object.fromEntries(
        Object.entries(config.headers).map(([name, value]) => [name.toLowerCase(), value]),
      ),
      credentialHeaders: auth.headers,
      credentialOrigins: new Set([baseUrl.origin, ...allowedOrigins]),
      redirectOrigins: new Set([baseUrl.origin, ...allowedOrigins, ...config.allowedRedirectOrigins]),
    }),
    policy: { baseUrl, allowedOrigins },
  };

  const outputSchemas = new Map(
    config.tools.map((tool, index) => [tool.name, buildOutputSchema(tool, `tools.${index}.outputSchema`)]),
  );
  /** The tool whose output schema a job's result is held to: its own, or the only tool for a ref without one. */
  function resultSchemaTool(ref: RestJobRef): string | undefined {
    const name = ref.tool ?? (config.tools.length === 1 ? config.tools[0]!.name : undefined);
    return name !== undefined && outputSchemas.get(name) !== undefined ? name : undefined;
  }
  function outputSchemaFor(ref: RestJobRef) {
    const name = resultSchemaTool(ref);
    return name === undefined ? undefined : outputSchemas.get(name);
  }
  const { requestStatus, readStatus } = createStatusReader({ environment, config, now, outputSchemaFor });
  const tools = config.tools.map((tool, index) =>
    startJobTool(tool, index, { environment, config, now, outputSchema: outputSchemas.get(tool.name) }),
  );

  const events =
    config.events && eventSecret !== undefined
      ? restEvents({ config, events: config.events, secret: eventSecret, policy: environment.policy, resultSchemaTool })
      : undefined;

  const adapter: JobAdapterV1<RestJobRef> = {
    specificationVersion: "v1",
    kind: "rest",
    tools,
    pollIntervalMs: Math.max(minimumPollIntervalMs, config.polling.initialIntervalMs),
    retentionMs: config.retentionMs,
    // The server checks every ref against it before the methods below see one.
    refSchema: restJobRefSchema,
    // The core redacts these from everything the adapter hands back (withSecretRedaction).
    secrets: eventSecret === undefined ? auth.secrets : [...auth.secrets, eventSecret],
    doGetStatus: async (ref, context) => (await readStatus(ref, context)).snapshot,
    // Callbacks at /hooks/<instance name>, when the config describes them.
    ...(events ? { events } : {}),
  };

  const inputRequired = config.inputRequired;
  if (inputRequired) {
    adapter.doRespond = async (
      ref: RestJobRef,
      responses: Record<string, ElicitationResponse>,
      context: AdapterContext,
    ) => {
      // Read the job first: the answer may have been overtaken (answered elsewhere, job moved on), and
      // the respond templates may use the current status body.
      const { response, snapshot } = await readStatus(ref, context);
      await deliverAnswers(environment, inputRequired, { job: { id: ref.id }, response, snapshot }, responses, context);
    };
  }

  const cancel = config.cancel;
  if (cancel) {
    adapter.doCancel = (ref: RestJobRef, context: AdapterContext) =>
      cancelJob(
        environment,
        cancel,
        {
          job: { id: ref.id },
          readStatus: () => requestStatus(ref, context),
          justSubmitted: now() - ref.createdAt < config.status.goneGraceMs,
        },
        context,
      );
  }
  return adapter;
}

/** The callbacks' secret, read when the adapter is built so that a missing variable stops start-up. */
function readEventSecret(
  verification: NonNullable<ResolvedRestOptions["events"]>["verification"],
  environment: Readonly<Record<string, string | undefined>>,
): string {
  const secret = readSecret(verification.secret, verification.secretEnv, "events.verification.secret", environment);
  if (secret.length < minimumEventSecretLength) {
    throw new AdapterConfigError(
      verification.secretEnv === undefined ? "events.verification.secret" : "events.verification.secretEnv",
      `at least ${minimumEventSecretLength} characters${verification.secretEnv === undefined ? "" : ` (in ${verification.secretEnv})`}`,
    );
  }
  return secret;
}
