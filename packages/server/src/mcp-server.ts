import { z } from "@jobtasks/core";
import { ProtocolError, Server, type ServerContext } from "@modelcontextprotocol/server";
import { TaskProtocolError, errorCodes, tasksExtensionId, tasksExtensionRequired } from "./protocol-error.js";
import { clientCapabilitiesKey, declaresTasksExtension } from "./declares-tasks-extension.js";
import type { TaskService } from "./task-service.js";
import { progressObserver } from "./progress-notifications.js";
import { serverInstructions } from "./server-instructions.js";
import type { Logger } from "./logger.js";
import type { ElicitationResponse, InputRequest } from "@jobtasks/core";
import type { GrantedScopes } from "./access-policy.js";
import { observeRequestHandlers, requestSpanOf } from "./mcp-request-telemetry.js";
import { isHandleToolName } from "./handle-tool-definitions.js";

export interface McpServerOptions {
  name: string;
  version: string;
  /** What the tools do, shown to clients in initialize and server/discover (see serverInstructions). */
  instructions?: string;
  service: TaskService;
  logger: Logger;
  /** The principal for this serving unit (one HTTP request, or one stdio connection). */
  principal: string;
  /** Its scopes; absent, every scope (stdio, no authentication). */
  scopes?: GrantedScopes;
  /**
   * The protocol era the SDK serves this unit in. The extension is defined for 2026-07-28 only: a
   * 2025-era request never gets a task, whatever its _meta says.
   */
  era?: "legacy" | "modern";
}

const taskIdParams = z.looseObject({ taskId: z.string() });

/** The client capabilities this request, and only this request, declared in its _meta. */
function declaredCapabilities(context: ServerContext): Record<string, unknown> | undefined {
  const capabilities = (context.mcpReq.envelope as Record<string, unknown> | undefined)?.[clientCapabilitiesKey];
  return typeof capabilities === "object" && capabilities !== null
    ? (capabilities as Record<string, unknown>)
    : undefined;
}

/** The request's progress token, when its client asked for progress (`_meta.progressToken`). */
function progressTokenOf(context: ServerContext): string | number | undefined {
  const token = context.mcpReq._meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** Progress notifications for this call, when its client asked for them with a progressToken. */
function progressObserverFor(context: ServerContext) {
  const token = progressTokenOf(context);
  return token === undefined
    ? undefined
    : progressObserver(token, (notification) => context.mcpReq.notify(notification));
}

/** The echoed multi-round-trip state, as the client sent it (no verify hook is set: the service checks it). */
function readRequestState(context: ServerContext): string | undefined {
  const state: unknown = context.mcpReq.requestState();
  return typeof state === "string" ? state : undefined;
}

type RequestHandler = (request: unknown, context: ServerContext) => unknown;

/**
 * server/discover answers the instructions for the request's client: one stdio instance serves every
 * request of its connection, each with its own declared capabilities. The SDK installs its discover
 * handler on the instance after the factory returns, so the instance wraps whichever handler is set for
 * that method, and only replaces the instructions in its answer.
 */
function discoverInstructionsPerRequest(server: Server, instructionsFor: (context: ServerContext) => string): void {
  const setHandler = server.setRequestHandler.bind(server) as (method: string, ...rest: unknown[]) => void;
  const wrapping = (method: string, ...rest: unknown[]): void => {
    const [handler] = rest;
    if (method !== "server/discover" || rest.length !== 1 || typeof handler !== "function") {
      setHandler(method, ...rest);
      return;
    }
    setHandler(method, async (request: unknown, context: ServerContext) => ({
      ...((await (handler as RequestHandler)(request, context)) as Record<string, unknown>),
      instructions: instructionsFor(context),
    }));
  };
  (server as unknown as { setRequestHandler: typeof wrapping }).setRequestHandler = wrapping;
}

/**
 * Build one SDK Server instance. The HTTP entry calls this once per request, so nothing may live here:
 * every answer comes from the TaskService, which keeps nothing about tasks either.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { service, principal, logger } = options;
  const caller = options.scopes === undefined ? { principal } : { principal, scopes: options.scopes };
  const modern = options.era !== "legacy";
  const declares = (context: ServerContext) => modern && declaresTasksExtension(context.mcpReq.envelope);
  const instructionsFor = (tasksDeclared: boolean) =>
    serverInstructions(options.instructions, { tasksDeclared, clientsWithoutTasks: service.clientsWithoutTasks });
  // The instance's own instructions are those of a client without the extension (every 2025-era client);
  // server/discover answers each request by what it declares.
  const server = new Server(
    { name: options.name, version: options.version },
    {
      capabilities: { tools: {}, extensions: { [tasksExtensionId]: {} } },
      instructions: instructionsFor(false),
    },
  );
  if (modern) discoverInstructionsPerRequest(server, (context) => instructionsFor(declares(context)));
  observeRequestHandlers(
    server,
    service.telemetry,
    (name) => service.registry.tool(name) !== undefined || isHandleToolName(name),
  );

  const guard = async <T>(method: string, context: ServerContext, operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      // The client went away: nobody reads the answer, and it is no server fault worth an error log.
      if (context.mcpReq.signal.aborted) throw error;
      // In the request's context, so that a line logged for the failure carries its trace: a poll's span
      // (deferred until now, see RequestSpan) starts here, as it would when the failure ends it.
      const requestSpan = requestSpanOf(context);
      throw requestSpan
        ? requestSpan.run(() => toProtocolError(error, method, logger))
        : toProtocolError(error, method, logger);
    }
  };

  server.setRequestHandler("tools/list", async (_request, context) => ({
    tools: service.listTools(declares(context), options.scopes) as never,
  }));

  server.setRequestHandler("tools/call", (request, context) =>
    guard("tools/call", context, async () => {
      const result = await service.callTool(request.params.name, request.params.arguments, {
        ...caller,
        signal: context.mcpReq.signal,
        tasksDeclared: declares(context),
        ...progressReporter(context),
        ...(modern ? {} : formAsker(server, context)),
        // Multi round trip exists from 2026-07-28 on; a 2025-era client cannot answer questions.
        inputResponses: modern ? (context.mcpReq.inputResponses ?? {}) : undefined,
        requestState: modern ? readRequestState(context) : undefined,
        clientCapabilities: declaredCapabilities(context),
        observeSnapshot: progressObserverFor(context),
      });
      // A CreateTaskResult is a legal answer to tools/call under the extension; the SDK's handler type
      // only knows CallToolResult.
      return result as never;
    }),
  );

  const requireDeclared = (method: string, context: ServerContext) => {
    if (!declares(context)) throw tasksExtensionRequired(method);
  };

  server.setRequestHandler("tasks/get", { params: taskIdParams }, (params, context) =>
    guard("tasks/get", context, async () => {
      requireDeclared("tasks/get", context);
      const task = await service.getTask(params.taskId, {
        ...caller,
        signal: context.mcpReq.signal,
        requestSpan: requestSpanOf(context),
      });
      return { resultType: "complete", ...task } as never;
    }),
  );

  server.setRequestHandler("tasks/update", { params: taskIdParams }, (params, context) =>
    guard("tasks/update", context, async () => {
      requireDeclared("tasks/update", context);
      // The SDK lifts inputResponses out of params before validation.
      const inputResponses = context.mcpReq.inputResponses ?? readInputResponses(params);
      await service.updateTask(params.taskId, inputResponses, { ...caller, signal: context.mcpReq.signal });
      return { resultType: "complete" } as never;
    }),
  );

  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, (params, context) =>
    guard("tasks/cancel", context, async () => {
      requireDeclared("tasks/cancel", context);
      await service.cancelTask(params.taskId, { ...caller, signal: context.mcpReq.signal });
      return { resultType: "complete" } as never;
    }),
  );

  return server;
}

/**
 * task_status sends the job's status messages as notifications/progress while it waits, when the request
 * asked for progress (a client that passes a progress token; the v1 SDK Client does so for onprogress).
 */
function progressReporter(context: ServerContext): { onProgress?: (message: string) => void } {
  const token = progressTokenOf(context);
  if (token === undefined) return {};
  let progress = 0;
  return {
    onProgress: (message) => {
      progress += 1;
      // A lost progress line is no reason to fail the wait.
      void context.mcpReq
        .notify({ method: "notifications/progress", params: { progressToken: token, progress, message } })
        .catch(() => undefined);
    },
  };
}

/**
 * A 2025-era client that declared form elicitation, on a connection that carries server requests (stdio;
 * a stateless HTTP request has no initialize, so no declared capabilities): task_status may show it the
 * job's question as a form. The 2026-07-28 protocol has no server-to-client requests.
 */
function formAsker(
  server: Server,
  context: ServerContext,
): { askUser?: (request: InputRequest, timeoutMs: number) => Promise<ElicitationResponse> } {
  const elicitation = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation || (Object.keys(elicitation).length > 0 && !("form" in elicitation))) return {};
  return {
    askUser: async (request, timeoutMs) => {
      // Our forms use the elicitation schema subset; the SDK types it more narrowly than the core does.
      const result = await context.mcpReq.elicitInput(request.params as never, {
        timeout: timeoutMs,
        signal: context.mcpReq.signal,
      });
      return result.content === undefined
        ? { action: result.action }
        : { action: result.action, content: result.content as ElicitationResponse["content"] & object };
    },
  };
}

function readInputResponses(params: Record<string, unknown>): Record<string, unknown> {
  const value = params["inputResponses"];
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** Our errors become JSON-RPC errors as they are; anything else is logged and answered without detail. */
export function toProtocolError(error: unknown, method: string, logger: Logger): Error {
  if (error instanceof TaskProtocolError) return new ProtocolError(error.code, error.message, error.data);
  if (error instanceof ProtocolError) return error;
  if (error instanceof Error && error.name === "AbortError") return error;
  logger.error({ err: error, method }, "unexpected error while serving a request");
  return new ProtocolError(errorCodes.internalError, "Internal error");
}
