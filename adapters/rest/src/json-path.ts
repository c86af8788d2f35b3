import { AdapterConfigError } from "@jobtasks/core";
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
    matches = JSONPath({ path: normalizePath(path), json: document as object, wrap: true, eval: "safe" });
  } catch (error) {
    // The path is config, so a path that cannot be evaluated is the config's fault, not the upstream's.
    throw new AdapterConfigError(`path ${path}`, "this JSONPath expression cannot be evaluated", { cause: error });
  }
  return Array.isArray(matches) ? matches.filter((match) => match !== undefined) : [];
}

/** The first match of `path`, or undefined when nothing matches. */
export function queryFirst(path: string, document: unknown): unknown {
  return queryAll(path, document)[0];
}

/** The first of several paths that yields a value other than null. */
export function queryFirstOf(paths: readonly string[], document: unknown): { path: string; value: unknown } | undefined {
  for (const path of paths) {
    const value = queryFirst(path, document);
    if (value !== undefined && value !== null) return { path, value };
  }
  return undefined;
}

