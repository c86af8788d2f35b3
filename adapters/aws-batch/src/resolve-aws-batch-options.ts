import { AdapterConfigError } from "@jobtasks/core";
import type { AwsBatchOptions } from "./aws-batch-options.js";
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
  const { batchClient: _batchClient, logsClient: _logsClient, ...configurable } = options;
  const parsed = awsBatchOptionsSchema.safeParse(configurable);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue ? issue.path.map(String).join(".") || "options" : "options";
  const source = environmentSources[path];
  const hint = source ? ` (it may come from the ${source} environment variable)` : "";
  throw new AdapterConfigError(path, `${issue?.message ?? "invalid"}${hint}`, { cause: parsed.error });
}
