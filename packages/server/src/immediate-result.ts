import type { CallToolResult, JobSnapshot } from "@jobtasks/core";

/**
 * The extension's immediate-result shortcut: the server decides per request whether to make a task, and a
 * job that was already finished when its start returned has nothing left to poll. Its plain result is the
 * answer, to clients with or without the extension. Only `completed`: a start that failed is answered
 * by the start-failure path, and a working or waiting job needs its task.
 */
export function immediateResult(firstSnapshot: JobSnapshot | undefined): CallToolResult | undefined {
  if (firstSnapshot?.status !== "completed") return undefined;
  return firstSnapshot.result ?? { content: [] };
}
