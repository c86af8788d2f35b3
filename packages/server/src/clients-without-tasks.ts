import { ConfigError } from "@jobtasks/core";
import { handleToolDescriptors, isHandleToolName } from "./handle-tool-definitions.js";
import { withoutOutputSchema, type AdapterInstance, type ToolDescriptor } from "./tool-registry.js";

/**
 * What a request that does not declare the tasks extension gets from a job tool: a handle it follows with
 * task_status / task_answer / task_cancel (the default), the plain result of tools that opted into
 * synchronous waiting (-32021 for the others), or -32021 for every job tool.
 */
export const clientsWithoutTasksModes = ["handles", "wait", "refuse"] as const;
export type ClientsWithoutTasks = (typeof clientsWithoutTasksModes)[number];

/** However long a tool's synchronousWaitMs, a handle answers within this: well inside common client timeouts (about 60 s). */
export const maxQuickFinishWaitMs = 30_000;

/**
 * tools/list for a request without the extension, with handles on: the job tools without their output
 * schemas (a client checks structuredContent against them, and a handle is not the job's result), then
 * the three handle tools.
 */
export function toolsListedWithHandles(descriptors: readonly ToolDescriptor[]): ToolDescriptor[] {
  return [...descriptors.map(withoutOutputSchema), ...handleToolDescriptors()];
}

/** In handles mode the three handle tools are the server's own: an adapter tool may not take one of their names. */
export function refuseHandleToolNames(adapters: readonly AdapterInstance[]): void {
  for (const [index, configured] of adapters.entries()) {
    const clash = configured.adapter.tools.find((tool) => isHandleToolName(tool.name));
    if (clash) {
      throw new ConfigError(
        `adapters[${index}]`,
        `tool "${clash.name}" of adapter "${configured.name}" clashes with the server's own tool "${clash.name}" (how clients without the tasks extension follow jobs); rename the adapter's tool, or set server.clientsWithoutTasks to wait or refuse`,
      );
    }
  }
}
