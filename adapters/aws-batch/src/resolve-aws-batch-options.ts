import { AdapterConfigError } from "@jobtasks/core";
import type { AwsBatchOptions } from "./aws-batch-options.js";
import type { z } from "zod";
import { awsBatchOptionsSchema, type ResolvedAwsBatchOptions } from "./aws-batch-options-schema.js";

/** Where an option may come from in the environment, named in errors so the fix is obvious. */
const environmentSources: Record<string, string> = {
  region: "AWS_REGION",
  profile: "AWS_PROFILE",
  "credentials.accessKeyId": "AWS_ACCESS_KEY_ID",
  "credentials.secretAccessKey": "AWS_SECRET_ACCESS_KEY",
  "credentials.sessionToken": "AWS_SESSION_TOKEN",
};

/**
 * Validate options and fill defaults, failing with the first problem as an AdapterConfigError that names
 * the option. Option values never appear in the message: they may be credentials.
 */
export function resolveAwsBatchOptions(options: AwsBatchOptions): ResolvedAwsBatchOptions {
  const parsed = awsBatchOptionsSchema.safeParse(configurableOptions(options));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue ? issue.path.map(String).join(".") || "options" : "options";
  const source = environmentSources[path];
  const hint = source ? ` (it may come from the ${source} environment variable)` : "";
  throw new AdapterConfigError(path, `${issue?.message ?? "invalid"}${hint}`, { cause: parsed.error });
}

/**
 * The options the schema validates: all but the injected clients and random source. Typed as the schema's input, so the
 * compiler reports a documented option whose type the schema does not accept.
 */
function configurableOptions(options: AwsBatchOptions): z.input<typeof awsBatchOptionsSchema> {
  const { batchClient: _batchClient, logsClient: _logsClient, random: _random, ...configurable } = options;
  return configurable;
}
