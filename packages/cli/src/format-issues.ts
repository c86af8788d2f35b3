import type { z } from "zod";

/** "adapters[0].options.baseUrl: Invalid URL" — one line per problem, the path first. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix = ""): string[] {
  return issues.map((issue) => `${joinPath(prefix, issue.path)}: ${issue.message}`);
}

export function joinPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let joined = prefix;
  for (const segment of path) {
    joined += typeof segment === "number" ? `[${segment}]` : joined === "" ? String(segment) : `.${String(segment)}`;
  }
  return joined === "" ? "(root)" : joined;
}
