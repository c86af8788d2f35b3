import {
  Client,
  StreamableHTTPClientTransport,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createTaskSessionFromClient,
  type ApplicationElicitResult,
  type ApplicationInputRequest,
  type JsonRpcResponse,
  type RawClientDispatch,
  type ResolvedInputExchangeContext,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";

/**
 * The official requester, connected the way a real agent host would connect it: a v2 SDK Client pinned to
 * protocol 2026-07-28, and an ext-tasks session on top. ext-tasks needs a raw path for tools/call and
 * tasks/* because the SDK Client rejects `resultType: "task"`; the Client has no public hook for that, so
 * we intercept the transport's inbound messages once the Client is connected, and route answers to our own
 * (string) request ids back to the raw dispatcher, everything else to the Client.
 */

export const pinnedProtocolVersion = "2026-07-28";
const clientInfo = { name: "jobtasks-e2e", version: "0.0.0" };

export type InputHandler = (
  request: ApplicationInputRequest,
  context: ResolvedInputExchangeContext<void>,
) => Promise<ApplicationElicitResult>;

export interface ConnectedRequester {
  client: Client;
  session: TaskEnabledSession;
  /** Closes the session, the Client and the transport (which ends a spawned stdio server). */
  close(): Promise<void>;
}

export interface RequesterOptions {
  /** Answers the task's input requests, as the agent's host would (elicitation forms). */
  onInputRequest?: InputHandler;
  /** How long one raw request may wait for its answer. Default 15 s. */
  requestTimeoutMs?: number;
  /**
   * The session's endpoint identity; serialized task references only resume on the same one. Default:
   * derived from the URL or the command line.
   */
  endpointId?: string;
}

export interface HttpRequesterOptions extends RequesterOptions {
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

export interface StdioRequesterOptions extends RequesterOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Receives the server's stderr (JSON log lines), for diagnosing a failing test. */
  onStderr?: (chunk: string) => void;
}

export async function connectHttpRequester(options: HttpRequesterOptions): Promise<ConnectedRequester> {
  const transport = new StreamableHTTPClientTransport(
    new URL(options.url),
    options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {},
  );
  return connectRequester(transport, options, options.endpointId ?? `http:${options.url}`);
}

export async function connectStdioRequester(options: StdioRequesterOptions): Promise<ConnectedRequester> {
  const transport = new StdioClientTransport({
    command: options.command,
    args: options.args,
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stderr: "pipe",
  });
  const stderr = transport.stderr;
  stderr?.on("data", (chunk: Buffer) => options.onStderr?.(chunk.toString("utf8")));
  return connectRequester(
    transport,
    options,
    options.endpointId ?? `stdio:${options.command} ${options.args.join(" ")}`,
  );
}

async function connectRequester(
  transport: Transport,
  options: RequesterOptions,
  endpointId: string,
): Promise<ConnectedRequester> {
  const raw = interceptRawResponses(transport, options.requestTimeoutMs ?? 15_000);
  // The Client's own capabilities stay free of the tasks extension: ext-tasks declares it on each request
  // it frames, which is exactly the per-request negotiation the extension asks for.
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: pinnedProtocolVersion } } });
  await client.connect(transport);
  raw.install();
  const session = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch: raw.dispatch,
    v2RequestFraming: { protocolVersion: pinnedProtocolVersion, clientInfo, clientCapabilities: {} },
    ...(options.onInputRequest ? { onInputRequest: options.onInputRequest as never } : {}),
  });
  return {
    client,
    session,
    close: async () => {
      await session.close().catch(() => undefined);
      raw.rejectAll(new Error("requester closed"));
      await client.close().catch(() => undefined);
    },
  };
}

interface PendingRequest {
  resolve(response: JsonRpcResponse): void;
  reject(error: Error): void;
}

/**
 * Install a filter in front of whatever onmessage handler the Client sets on the transport (now or later),
 * and return a dispatcher that sends already-framed requests with ids the Client never uses (it numbers
 * its own requests).
 */
function interceptRawResponses(transport: Transport, timeoutMs: number) {
  const pending = new Map<string, PendingRequest>();
  let nextId = 0;
  let clientHandler: Transport["onmessage"];

  const filter = (message: JSONRPCMessage, extra?: unknown) => {
    const id = (message as { id?: unknown }).id;
    const isResponse = "result" in message || "error" in message;
    if (isResponse && typeof id === "string" && pending.has(id)) {
      const waiting = pending.get(id)!;
      pending.delete(id);
      const response = message as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
      waiting.resolve(
        response.error
          ? ({ kind: "error", error: response.error } as JsonRpcResponse)
          : ({ kind: "result", result: response.result } as JsonRpcResponse),
      );
      return;
    }
    clientHandler?.(message, extra as never);
  };
  // Installed after connect: the Client has set its handler by then (it chains whatever handler it finds,
  // so an accessor installed earlier would call itself), and nothing replaces it afterwards.
  const install = () => {
    clientHandler = transport.onmessage;
    transport.onmessage = filter;
  };

  const dispatch: RawClientDispatch = async (request, options) => {
    const id = `raw-${++nextId}`;
    const message = { ...(request as object), jsonrpc: "2.0", id } as JSONRPCMessage;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        options?.signal?.removeEventListener("abort", onAbort);
      };
      const timer = setTimeout(() => {
        pending.delete(id);
        finish();
        reject(new Error(`no answer to ${(request as { method?: string }).method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = () => {
        pending.delete(id);
        finish();
        reject(options?.signal?.reason ?? new Error("aborted"));
      };
      options?.signal?.addEventListener("abort", onAbort, { once: true });
      pending.set(id, {
        resolve: (response) => {
          finish();
          resolve(response);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      const headers = options?.context?.headers;
      transport
        .send(message, {
          ...(headers ? { headers } : {}),
          ...(options?.signal ? { requestSignal: options.signal } : {}),
        })
        .catch((error: unknown) => {
          const waiting = pending.get(id);
          pending.delete(id);
          waiting?.reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  };

  return {
    dispatch,
    install,
    rejectAll(error: Error) {
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    },
  };
}

/** An input handler that answers every elicitation with the given result, and records what it was asked. */
export function answerElicitations(
  answer: ApplicationElicitResult | ((params: Record<string, unknown>) => ApplicationElicitResult),
) {
  const asked: Array<{ params: Record<string, unknown>; inputId: string | undefined; taskId: string | undefined }> = [];
  const handler: InputHandler = async (request, context) => {
    if (request.kind !== "elicitation") throw new Error(`unexpected input request of kind ${request.kind}`);
    const params = request.params as Record<string, unknown>;
    asked.push({ params, inputId: context.inputId, taskId: context.taskId as string | undefined });
    return typeof answer === "function" ? answer(params) : answer;
  };
  return { handler, asked };
}
