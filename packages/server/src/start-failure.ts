import {
  InvalidToolInputError,
  JobNotFoundError,
  UpstreamError,
  type AdapterContext,
  type CallToolResult,
} from "@jobtasks/core";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/server";
import type { Logger } from "./logger.js";
import { TaskProtocolError } from "./protocol-error.js";
import type { ReadTarget } from "./snapshot-reader.js";
import type { RegisteredTool } from "./tool-registry.js";
import { invalidArguments } from "./validate-tool-input.js";
import { cancelAbandonedJob } from "./cancel-abandoned-job.js";

/**
 * What tools/call answers when doStart threw. Refused input is -32602 naming the field; an upstream that
 * refused or failed the start is a tool-level error the agent can read and act on; anything else is
 * logged and reported without its details.
 */
export function startFailureResult(registered: RegisteredTool, error: unknown, logger: Logger): CallToolResult {
  if (error instanceof InvalidToolInputError) {
    // `problem` is absent on errors from an older copy of the core: strip the prefix the message then has.
    const problem = error.problem ?? error.message.replace(/^Invalid arguments: [^:]*: /, "");
    invalidArguments(registered.tool.name, error.field, problem);
  }
  if (error instanceof TaskProtocolError) throw error;
  if (isClientGone(error)) {
    // A client that left (or cancelled its call) is no server fault: no error level, no stack.
    logger.info(
      { tool: registered.tool.name, reason: (error as Error).message },
      "the client left while the job was being started",
    );
    return toolError(`Could not start ${registered.tool.name}: the call was cancelled or its client went away.`);
  }
  const known = error instanceof UpstreamError || error instanceof JobNotFoundError;
  if (!known) logger.error({ err: error, tool: registered.tool.name }, "adapter failed to start a job");
  const reason = known ? (error as Error).message : "an unexpected error in the adapter (see the server log)";
  const retry = error instanceof UpstreamError && error.isRetryable ? " This may pass; try again shortly." : "";
  return toolError(`Could not start ${registered.tool.name}: ${reason}.${retry}`);
}

/**
 * The errors a doStart ends with when its request's signal fired: the signal's reason as an adapter
 * rethrows it (the SDK aborts with "Connection closed" when the client goes, or the server stops), or the
 * AbortError of a fetch or SDK call cut short by it. Only the error is at hand here, so an adapter that
 * aborts a call of its own without a reason would read as a client that left too; a timeout does not
 * (TimeoutError).
 */
function isClientGone(error: unknown): boolean {
  if (error instanceof SdkError) return error.code === SdkErrorCode.ConnectionClosed;
  return error instanceof Error && error.name === "AbortError";
}

/**
 * The job started but cannot be handed out as a task (its ref does not fit in a task id, or its adapter's own
 * refSchema refuses it): stop it rather than leave it running unseen.
 */
export async function cancelUnservableJob(
  registered: RegisteredTool,
  target: ReadTarget,
  context: AdapterContext,
  error: Error,
  logger: Logger,
  logMessage = "job reference too large for a task id",
): Promise<CallToolResult> {
  logger.error({ adapter: registered.instance, tool: registered.tool.name, err: error }, logMessage);
  const cancelled = (await cancelAbandonedJob(target, context, logger)) === "cancelled";
  const outcome = cancelled ? "The job was cancelled." : "The job may still be running upstream.";
  return toolError(`Could not start ${registered.tool.name} as a task: ${error.message}. ${outcome}`);
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
