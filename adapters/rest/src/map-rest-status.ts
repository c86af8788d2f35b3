import type { TaskStatus } from "@jobtasks/core";
import { queryFirstOf } from "./json-path.js";
import type { StatusOptions } from "./job-options-schema.js";

/** The unified reading of one status response. `gone` means the upstream no longer knows the job. */
export type StatusReading =
  | { gone: true; rawStatus: string }
  | { gone: false; status: TaskStatus; rawStatus: string; isError: boolean };

function includes(values: readonly string[], candidate: string): boolean {
  return values.some((value) => value.toLowerCase() === candidate);
}

function rawText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * Longest raw status kept: it becomes rawStatus and, as a fallback, the statusMessage of every poll, so an
 * object status (or an absurd string) must not carry a whole body into each of them.
 */
export const maxRawStatusLength = 200;

function bounded(text: string): string {
  return text.length > maxRawStatusLength ? `${text.slice(0, maxRawStatusLength - 1)}…` : text;
}

/**
 * Map one status response to a task status. HTTP rules come first (a 202 while the job runs, a 404 once
 * it is gone), then the status field against the value lists, case-insensitively. A value in no list,
 * including one the upstream invents next year, maps to the configured non-terminal default.
 */
export function mapStatus(options: StatusOptions, httpStatus: number | undefined, body: unknown): StatusReading {
  // A submit response body read as a first observation has no status-read HTTP semantics: no rule applies.
  const httpRule = httpStatus === undefined ? undefined : options.http[String(httpStatus)];
  if (httpRule === "gone") return { gone: true, rawStatus: `HTTP ${httpStatus}` };
  if (httpRule === "working")
    return { gone: false, status: "working", rawStatus: `HTTP ${httpStatus}`, isError: false };
  if (httpRule === "completed")
    return { gone: false, status: "completed", rawStatus: `HTTP ${httpStatus}`, isError: false };

  const fullStatus = rawText(queryFirstOf(options.field, body)?.value);
  // Compared whole against the value lists; kept bounded for messages.
  const candidate = fullStatus.toLowerCase();
  const rawStatus = bounded(fullStatus);
  const reading = (status: TaskStatus, isError = false): StatusReading => ({ gone: false, status, rawStatus, isError });
  if (candidate === "") return reading(options.unknown);
  if (includes(options.errorValues, candidate)) return reading("completed", true);
  if (includes(options.completed, candidate)) return reading("completed");
  if (includes(options.cancelled, candidate)) return reading("cancelled");
  if (includes(options.failed, candidate)) return reading("failed");
  if (includes(options.inputRequired, candidate)) return reading("input_required");
  if (includes(options.working, candidate)) return reading("working");
  return reading(options.unknown);
}
