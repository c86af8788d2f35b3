import { JSONPath } from "jsonpath-plus";

/**
 * Path extraction over upstream JSON, delegated to jsonpath-plus rather than a hand-written parser.
 * Paths come from the trusted config; the documents they read are untrusted upstream answers.
 */

/** A path may be written with or without the leading `$.` (`status` is `$.status`). */
export function normalizePath(path: string): string {
  const trimmed = path.trim();
  if (trimmed === "$" || trimmed.startsWith("$.") || trimmed.startsWith("$[")) return trimmed;
  return `$.${trimmed}`;
}

/**
 * Every match of `path` in `document`, in document order. "safe" evaluation keeps filter expressions
 * (`[?(@.status=='running')]`) available without handing them to `eval`.
 */
export function queryAll(path: string, document: unknown): unknown[] {
  if (document === null || typeof document !== "object") return normalizePath(path) === "$" ? [document] : [];
  let matches: unknown;
  try {
    // ignoreEvalErrors: an item a filter cannot read (null where an object was expected) is skipped, rather
    // than ending the whole query and hiding the items it can read.
    matches = JSONPath({
      path: normalizePath(path),
      json: document as object,
      wrap: true,
      eval: "safe",
      ignoreEvalErrors: true,
    });
  } catch {
    // The path's syntax was checked when the adapter was built (pathSyntaxProblem), so what still throws
    // here is upstream data of an unexpected shape: nothing matches.
    return [];
  }
  return Array.isArray(matches) ? matches.filter((match) => match !== undefined) : [];
}

/**
 * Stands in for any upstream value while a filter expression is checked: every property read and call
 * gives it back, so a well-formed filter evaluates whatever it reads, and only syntax errors or unknown
 * functions (the config's fault) throw.
 */
const anyValue: unknown = new Proxy(function anyValue() {}, {
  get: (_target, property) => (property === Symbol.toPrimitive ? () => "" : anyValue),
  apply: () => anyValue,
});

/** Why `path` cannot be evaluated on any document (a filter's syntax error), or undefined when it can. */
export function pathSyntaxProblem(path: string): string | undefined {
  let segments: unknown[];
  try {
    segments = JSONPath.toPathArray(normalizePath(path));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  for (const segment of segments) {
    if (typeof segment !== "string" || !segment.startsWith("?(")) continue;
    try {
      JSONPath({ path: `$[${segment}]`, json: [anyValue] as object, wrap: true, eval: "safe" });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return undefined;
}

/** The first match of `path`, or undefined when nothing matches. */
export function queryFirst(path: string, document: unknown): unknown {
  return queryAll(path, document)[0];
}

/** The first of several paths that yields a value other than null. */
export function queryFirstOf(
  paths: readonly string[],
  document: unknown,
): { path: string; value: unknown } | undefined {
  for (const path of paths) {
    const value = queryFirst(path, document);
    if (value !== undefined && value !== null) return { path, value };
  }
  return undefined;
}
