import { UpstreamError, redactSecrets } from "@jobtasks/core";
import { maxJsonDepth } from "./json-depth.js";

/**
 * Redaction of secrets from values built from upstream answers. It works on values, never on JSON text
 * that is parsed again: a secret with quotes or backslashes would not match its escaped form in JSON
 * text, and a secret matching JSON syntax (a number's digits, a key) would break the text's structure.
 */

/**
 * The secrets plus their JSON-escaped forms, for text that may quote a value as JSON (an error detail or
 * a message placeholder rendered with JSON.stringify): `pa"ss` also appears as `pa\"ss` there.
 */
export function textSecrets(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  return [...forms];
}

/**
 * A copy of `value` with every string redacted, at any depth. Numbers, booleans and object keys are left
 * as they are, so the value keeps its shape and types (a structuredContent that matched the tool's
 * outputSchema still does); a credential is a string, and upstreams do not echo one as a property name.
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const forms = textSecrets(secrets);
  // Upstream bodies are bounded at maxJsonDepth when read; a snapshot wraps them a few levels deeper. The
  // bound here keeps anything else that reaches this walk from overflowing the stack.
  const limit = 2 * maxJsonDepth;
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === "string") return redactSecrets(item, forms);
    if (item === null || typeof item !== "object") return item;
    if (depth > limit)
      throw new UpstreamError(`The upstream's answer is nested more than ${limit} levels deep`, { isRetryable: false });
    if (Array.isArray(item)) return item.map((inner) => walk(inner, depth + 1));
    return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner, depth + 1)]));
  };
  return walk(value, 1) as T;
}
