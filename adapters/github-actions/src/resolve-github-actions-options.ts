import { AdapterConfigError } from "@jobtasks/core";
import type { z } from "zod";
import type { GithubCredentials } from "./create-github-client.js";
import { githubActionsOptionsSchema, type ResolvedGithubActionsConfig } from "./github-actions-options.js";

export type Environment = Readonly<Record<string, string | undefined>>;

export interface ResolvedGithubActionsOptions {
  config: ResolvedGithubActionsConfig;
  credentials: GithubCredentials;
  baseUrl: string;
  /** "owner/repo", lower case. */
  repositories: string[];
  toolNames: { watchRun: string; rerunRun: string; runWorkflow: string | undefined };
  /** Every credential value, for redaction. */
  secrets: string[];
}

/**
 * Validate the options (the config-file part) and fill what may come from the environment. Every error
 * names the option, and the environment variable it may come from.
 */
export function resolveGithubActionsOptions(options: unknown, environment: Environment): ResolvedGithubActionsOptions {
  const parsed = githubActionsOptionsSchema.safeParse(options);
  if (!parsed.success) throw zodToConfigError(parsed.error);
  const config = parsed.data;

  const credentials = resolveCredentials(config, environment);
  const baseUrl = config.baseUrl ?? environment.GITHUB_API_URL ?? "https://api.github.com";
  if (!URL.canParse(baseUrl)) throw new AdapterConfigError("baseUrl", "not a URL (from the option, or GITHUB_API_URL)");

  const repositories = new Set((config.repositories ?? []).map((entry) => entry.toLowerCase()));
  if (config.repositories === undefined) {
    for (const workflow of config.workflows) repositories.add(workflow.repository.toLowerCase());
    for (const entry of config.allowedWorkflows) repositories.add(entry.split("/").slice(0, 2).join("/").toLowerCase());
  }
  if (repositories.size === 0) {
    throw new AdapterConfigError("repositories", 'name at least one "owner/repo" (or configure workflows / allowedWorkflows)');
  }

  const toolNames = {
    watchRun: `${config.toolPrefix}watch_run`,
    rerunRun: `${config.toolPrefix}rerun_run`,
    runWorkflow: config.allowedWorkflows.length > 0 ? `${config.toolPrefix}run_workflow` : undefined,
  };
  const seen = new Set<string>([toolNames.watchRun, toolNames.rerunRun, ...(toolNames.runWorkflow ? [toolNames.runWorkflow] : [])]);
  config.workflows.forEach((workflow, index) => {
    if (seen.has(workflow.tool)) throw new AdapterConfigError(`workflows[${index}].tool`, `the tool name ${workflow.tool} is already taken`);
    seen.add(workflow.tool);
  });

  const secrets = credentials.kind === "token" ? [credentials.token] : [credentials.privateKey];
  return { config, credentials, baseUrl, repositories: [...repositories], toolNames, secrets };
}

function resolveCredentials(config: ResolvedGithubActionsConfig, environment: Environment): GithubCredentials {
  if (config.app) {
    const appId = config.app.appId ?? environment.GITHUB_APP_ID;
    const privateKey = config.app.privateKey ?? environment.GITHUB_APP_PRIVATE_KEY;
    const installationId = config.app.installationId ?? environment.GITHUB_APP_INSTALLATION_ID;
    if (!appId) throw new AdapterConfigError("app.appId", "required (the option, or GITHUB_APP_ID)");
    if (!privateKey) throw new AdapterConfigError("app.privateKey", "required (the option, or GITHUB_APP_PRIVATE_KEY)");
    if (!installationId) throw new AdapterConfigError("app.installationId", "required (the option, or GITHUB_APP_INSTALLATION_ID)");
    if (!privateKey.includes("PRIVATE KEY")) throw new AdapterConfigError("app.privateKey", "expected a PEM private key");
    return { kind: "app", appId, privateKey: privateKey.replace(/\\n/g, "\n"), installationId };
  }
  const token = config.token ?? environment.GITHUB_TOKEN;
  if (!token) throw new AdapterConfigError("token", "required: set the token option or the GITHUB_TOKEN environment variable (or configure app)");
  return { kind: "token", token };
}

function zodToConfigError(error: z.ZodError): AdapterConfigError {
  const issue = error.issues[0];
  const path = issue?.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("").replace(/^\./, "") || "options";
  return new AdapterConfigError(path, issue?.message ?? "invalid", { cause: error });
}
