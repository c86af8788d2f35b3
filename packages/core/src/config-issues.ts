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

/** Where an adapter's options sit, and where in the environment some of them may come from. */
export interface ConfigErrorOptions {
  /** The options' place in a larger config, put before each option name: `adapters[1].options`. */
  readonly prefix?: string;
  /**
   * The environment variable each option may come from, by option name (`{ region: "AWS_REGION" }`), named
   * after that option's problem so the fix is obvious whichever source the value came from.
   */
  readonly environmentVariables?: Readonly<Record<string, string>>;
}

/**
 * A failed parse of an adapter's options as the start-up error that names the option at fault: the first
 * problem's, with the others after it. The zod error stays reachable as `cause`.
 */
export function configErrorFromIssues(
  error: { readonly issues: readonly ConfigIssue[] },
  { prefix = "", environmentVariables = {} }: ConfigErrorOptions = {},
): AdapterConfigError {
  const [first, ...others] = error.issues;
  if (!first) return new AdapterConfigError(prefix || "options", "invalid", { cause: error });
  const problemOf = (issue: ConfigIssue): string => {
    const option = optionNameOf(issue.path);
    const variable = Object.hasOwn(environmentVariables, option) ? environmentVariables[option] : undefined;
    return variable ? `${issue.message} (it may come from the ${variable} environment variable)` : issue.message;
  };
  const also =
    others.length > 0
      ? `; also ${others.map((issue) => `${optionNameOf(issue.path, prefix)}: ${problemOf(issue)}`).join("; ")}`
      : "";
  return new AdapterConfigError(optionNameOf(first.path, prefix), `${problemOf(first)}${also}`, { cause: error });
}
