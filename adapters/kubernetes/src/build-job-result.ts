import type { CallToolResult } from "@jobtasks/core";
import type { V1Job } from "@kubernetes/client-node";
import { describeCounts } from "./map-kubernetes-status.js";
import type { ContainerEnd } from "./pod-details.js";
import type { LogTail } from "./tail-pod-logs.js";

/**
 * A finished Job's tool result: the outcome, the reason of a failure (BackoffLimitExceeded,
 * DeadlineExceeded, PodFailurePolicy, and OOMKilled when a container was killed for memory), the exit
 * codes and termination messages, and the end of the logs. The same facts as text for the agent and as
 * structuredContent.
 */
export function buildJobResult(
  job: V1Job,
  outcome: { isError: boolean; reason?: string; message: string },
  ends: readonly ContainerEnd[],
  logs: readonly LogTail[],
  note?: string,
): CallToolResult {
  const oomKilled = ends.some((end) => end.reason === "OOMKilled");
  const reason = outcome.reason ?? (outcome.isError && oomKilled ? "OOMKilled" : undefined);
  const status = job.status ?? {};
  const structured = {
    namespace: job.metadata?.namespace ?? "",
    name: job.metadata?.name ?? "",
    outcome: outcome.isError ? "failed" : "succeeded",
    ...(reason ? { reason } : {}),
    ...(oomKilled ? { oomKilled: true } : {}),
    succeeded: status.succeeded ?? 0,
    failed: status.failed ?? 0,
    ...(job.spec?.completions !== undefined ? { completions: job.spec.completions } : {}),
    ...(status.completedIndexes ? { completedIndexes: status.completedIndexes } : {}),
    ...(status.failedIndexes ? { failedIndexes: status.failedIndexes } : {}),
    ...(status.startTime ? { startTime: new Date(status.startTime).toISOString() } : {}),
    ...(status.completionTime ? { completionTime: new Date(status.completionTime).toISOString() } : {}),
    containers: ends.map((end) => ({ ...end })),
    logs: logs.map((tail) => ({ ...tail })),
    ...(note ? { note } : {}),
  };
  const lines = [
    `Job ${structured.namespace}/${structured.name}: ${outcome.message}${oomKilled && !outcome.message.includes("OOMKilled") ? " (a container was OOMKilled)" : ""}.`,
    describeCounts(job),
  ];
  for (const end of ends.slice(0, 10))
    lines.push(
      `${end.pod}/${end.container}: exit code ${end.exitCode}${end.reason ? ` (${end.reason})` : ""}${end.message ? `: ${end.message}` : ""}`,
    );
  for (const tail of logs) {
    lines.push(`--- end of the log of ${tail.pod}/${tail.container}${tail.note ? ` (${tail.note})` : ""}`);
    if (tail.text) lines.push(tail.text.trimEnd());
  }
  if (note) lines.push(note);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: structured,
    isError: outcome.isError,
  };
}
