import { InvalidToolInputError, z } from "@jobtasks/core";
import type { GithubApi } from "./github-actions-api.js";
import type { ResolvedGithubActionsConfig } from "./github-actions-options.js";

/** What every tool of one adapter instance shares. */
export interface ToolDependencies {
  api: GithubApi;
  config: ResolvedGithubActionsConfig;
  /** Repositories ("owner/repo", lower case) that watch_run and rerun_run may touch. */
  repositories: ReadonlyArray<string>;
  now: () => number;
}

/**
 * owner/repo fields for a tool's input: optional when the instance knows a single repository, which is
 * then the default, so the agent need not repeat it.
 */
export function repositoryInputFields(repositories: ReadonlyArray<string>) {
  const only = repositories.length === 1 ? repositories[0] : undefined;
  const hint = only ? ` (default: ${only.split("/")[0]})` : "";
  const repoHint = only ? ` (default: ${only.split("/")[1]})` : "";
  return {
    owner: only
      ? z.string().min(1).optional().describe(`Repository owner${hint}`)
      : z
          .string()
          .min(1)
          .describe(`Repository owner; one of: ${repositories.join(", ")}`),
    repo: only
      ? z.string().min(1).optional().describe(`Repository name${repoHint}`)
      : z.string().min(1).describe("Repository name"),
  };
}

/** The repository a call names, checked against the instance's allow-list. */
export function resolveRepository(
  dependencies: ToolDependencies,
  input: { owner?: string | undefined; repo?: string | undefined },
): { owner: string; repo: string } {
  const only = dependencies.repositories.length === 1 ? dependencies.repositories[0]!.split("/") : undefined;
  const owner = input.owner ?? only?.[0];
  const repo = input.repo ?? only?.[1];
  if (!owner) throw new InvalidToolInputError("owner", "required");
  if (!repo) throw new InvalidToolInputError("repo", "required");
  if (!dependencies.repositories.includes(`${owner}/${repo}`.toLowerCase())) {
    throw new InvalidToolInputError(
      "repo",
      `${owner}/${repo} is not one of this server's repositories (${dependencies.repositories.join(", ")})`,
    );
  }
  return { owner, repo };
}

/** Workflow inputs as GitHub takes them: strings, at most 25. */
export function toDispatchInputs(
  inputs: Record<string, string | number | boolean | undefined>,
  reserved: number,
): Record<string, string> {
  const entries = Object.entries(inputs).filter(
    (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
  );
  if (entries.length + reserved > 25) {
    throw new InvalidToolInputError(
      "inputs",
      `GitHub accepts at most 25 inputs${reserved > 0 ? ` (one is taken by the correlation input)` : ""}`,
    );
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, String(value)]));
}

export const runIdSchema = z
  .union([z.number().int().positive(), z.string().regex(/^\d+$/, "a numeric run id")])
  .describe("Workflow run id (the number in .../actions/runs/<id>)");
