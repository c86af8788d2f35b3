import type { Tool } from "@modelcontextprotocol/client";
import { JsonRpcResponseError, type ToolExecution } from "@modelcontextprotocol/ext-tasks/client";
import { ClientError } from "./client-error.js";
import {
  isInteractive,
  readPreparedAnswers,
  readTimeout,
  resolveTarget,
  type ClientFlags,
  type ResolvedTarget,
} from "./client-options.js";
import { connectRequester, type ConnectedRequester } from "./connect-requester.js";
import { TaskFollower } from "./follow-task.js";
import { redactUrlIn } from "./redact-url.js";
import { createTaskOutput } from "./task-output.js";

/** What `call` and `watch` share: connect, follow one execution to its end, close, give the exit code. */

const requestTimeoutMs = 30_000;
const handleToolNames = new Set(["task_status", "task_answer", "task_cancel"]);

export interface ClientSession {
  requester: ConnectedRequester;
  resolved: ResolvedTarget;
  follower: TaskFollower;
}

export async function withClient<T>(
  positionals: string[],
  flags: ClientFlags,
  use: (session: ClientSession) => Promise<T>,
): Promise<T> {
  const resolved = resolveTarget(positionals, flags);
  const follower = new TaskFollower();
  const requester = await connectRequester({
    target: resolved.target,
    onInputRequest: follower.inputHandler,
    requestTimeoutMs,
  });
  try {
    return await use({ requester, resolved, follower });
  } finally {
    await requester.close();
  }
}

export async function followToEnd(
  session: ClientSession,
  flags: ClientFlags,
  start: () => Promise<ToolExecution<unknown>>,
): Promise<number> {
  const answers = readPreparedAnswers(flags);
  const timeoutMs = readTimeout(flags);
  const display = session.resolved.display;
  const started = () =>
    start().catch((error: unknown) => {
      throw asClientError(error, "the server refused the request");
    });
  return session.follower.follow(started, {
    output: createTaskOutput(flags.json === true),
    answers,
    interactive: !flags.json && isInteractive(),
    redact: (text) => (session.resolved.target.kind === "http" ? redactUrlIn(text, session.resolved.target.url) : text),
    whyNotAsked: flags.json ? "--json never asks" : "stdin is not a terminal",
    timeoutMs,
    resumeHints: (taskId) => ({
      watch: `jobtasks watch ${display} ${taskId}`,
      answer: `jobtasks task answer ${display} ${taskId}`,
    }),
    resume: (taskId) => resumeTask(session, taskId),
    stillAsks: async (taskId, inputKey) => {
      const task = (await session.requester.session.task(taskId as never).snapshot()).raw as Record<string, unknown>;
      return task["status"] === "input_required" && Object.hasOwn((task["inputRequests"] ?? {}) as object, inputKey);
    },
  });
}

/** Follows a task by its id again, as `watch` does. */
export function resumeTask(session: ClientSession, taskId: string): Promise<ToolExecution<unknown>> {
  const { session: tasks } = session.requester;
  return tasks.resumeTask({
    endpointId: tasks.endpointId,
    generation: "v2",
    taskId: taskId as never,
    originalOperation: "tools/call",
  });
}

/** The tool's declaration, to read `--arg` values by type; undefined when the server does not list tools. */
export async function findTool(requester: ConnectedRequester, name: string): Promise<Tool | undefined> {
  let tools: Tool[];
  try {
    tools = (await requester.client.listTools()).tools;
  } catch {
    return undefined;
  }
  const tool = tools.find((entry) => entry.name === name);
  // The server lists its handle tools to clients without the tasks extension; this client calls with it.
  const listed = tools.filter((entry) => !handleToolNames.has(entry.name));
  if (!tool)
    throw new ClientError(
      `this server has no tool "${name}"; it has: ${listed.map((entry) => entry.name).join(", ") || "none"}`,
    );
  return tool;
}

/** A JSON-RPC error or a transport failure, as one line a person can act on (exit code 4). */
export function asClientError(error: unknown, doing: string): Error {
  if (error instanceof ClientError) return error;
  if (error instanceof JsonRpcResponseError)
    return new ClientError(`${doing}: ${error.message} (${error.code})`, { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "number")
    return new ClientError(`${doing}: ${(error as Error).message} (${code})`, { cause: error });
  return new ClientError(`${doing}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
