import { redactSecrets } from "@jobtasks/core";
import { textSecrets } from "./redact-value.js";

/**
 * Redaction of secrets from errors before they leave the adapter. Messages can carry what the upstream
 * chose (a redirect target, an Operation-Location URL, a body excerpt quoted by JSON.parse), and the core
 * puts an UpstreamError's message into the task's statusMessage and its logs.
 */

/** The forms a secret can take in a message: as is, JSON-escaped, percent-encoded, or lower-cased in a host name. */
export function errorSecrets(secrets: readonly string[]): string[] {
  const forms = new Set(textSecrets(secrets));
  for (const secret of secrets) {
    forms.add(encodeURIComponent(secret));
    forms.add(secret.toLowerCase());
  }
  return [...forms];
}

/**
 * Redact `error`'s message and stack, and those of its causes, in place. In place keeps the error's class,
 * fields (httpStatus, isRetryable, field) and identity; every error here was made or caught by the adapter.
 */
export function redactError<T>(error: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return error;
  const forms = errorSecrets(secrets);
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    rewrite(current, "message", forms);
    rewrite(current, "stack", forms);
    // InvalidToolInputError's problem is read-only by type, not at run time.
    rewrite(current, "problem", forms);
  }
  return error;
}

/**
 * Redact one string property where it can be written. Some errors in a chain cannot be changed (a
 * DOMException's message is a getter); those are made by the platform from fixed text, not from upstream
 * answers, so they are left as they are rather than failing the whole redaction.
 */
function rewrite(error: Error, property: "message" | "stack" | "problem", forms: readonly string[]): void {
  const value = (error as unknown as Record<string, unknown>)[property];
  if (typeof value !== "string") return;
  const redacted = redactSecrets(value, forms);
  if (redacted === value) return;
  try {
    (error as unknown as Record<string, unknown>)[property] = redacted;
  } catch {
    // Read-only: see above.
  }
}

/** Run `action`, redacting whatever it throws. */
export async function withRedactedErrors<T>(secrets: readonly string[], action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw redactError(error, secrets);
  }
}
