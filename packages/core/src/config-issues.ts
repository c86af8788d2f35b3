import { AdapterConfigError } from "./errors.js";

/**
 * What a failed zod parse reports for each problem (`z.ZodError["issues"]`), written out so that the core
 * needs no zod at run time. Issue messages name what was expected, never the value given, so they are safe
 * to show even when the value is a credential.
 */
export interface ConfigIssue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/**
 * An issue's path as the option it names, under `prefix`: `app.appId`, `jobs[0].url`,
 * `adapters[1].options.baseUrl`. An empty path (the block itself) is the prefix, or `whole` without one.
 */
export function optionNameOf(path: ReadonlyArray<PropertyKey>, prefix = "", whole = "options"): string {
  let joined = prefix;
  for (const segment of path) {
    joined += typeof segment === "number" ? `[${segment}]` : joined === "" ? String(segment) : `.${String(segment)}`;
  }
  return joined === "" ? whole : joined;
}

/** One line per problem, the option first: "adapters[0].options.baseUrl: Invalid URL". */
export function describeConfigIssues(issues: readonly ConfigIssue[], prefix = "", whole = "options"): string[] {
  return issues.map((issue) => `${optionNameOf(issue.path, prefix, whole)}: ${issue.message}`);
}

/**
 * A failed parse of an adapter's options as the start-up error that names the option at fault: the first
 * problem's, with the others after it. The zod error stays reachable as `cause`.
 */
export function configErrorFromIssues(
  error: { readonly issues: readonly ConfigIssue[] },
  prefix = "",
): AdapterConfigError {
  const [first, ...others] = error.issues;
  if (!first) return new AdapterConfigError(prefix || "options", "invalid", { cause: error });
  const also = others.length > 0 ? `; also ${describeConfigIssues(others, prefix).join("; ")}` : "";
  return new AdapterConfigError(optionNameOf(first.path, prefix), `${first.message}${also}`, { cause: error });
}
