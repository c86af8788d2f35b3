import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/**
 * The SDK's v1 Client (`@modelcontextprotocol/sdk` 1.x), as most agent hosts embed it: protocol up to
 * 2025-11-25, no tasks extension, its default request timeout (60 s), and output-schema checks on every
 * tools/call. What it gets from jobtasks is what those hosts get.
 */

/** A client that calls tools, whichever SDK line it comes from. */
export interface ToolClient {
  /** Every tools/call made through `callTool`, by tool name, in order. */
  calls: string[];
  listTools(): Promise<Array<{ name: string; outputSchema?: unknown }>>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { onprogress?: (progress: { message?: string | undefined }) => void; signal?: AbortSignal },
  ): Promise<V1ToolResult>;
  close(): Promise<void>;
}

export interface V1Connection extends ToolClient {
  client: Client;
  /** Every tools/call made through `callTool`, by tool name, in order. */
  calls: string[];
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { onprogress?: (progress: { message?: string | undefined }) => void; signal?: AbortSignal },
  ): Promise<V1ToolResult>;
  close(): Promise<void>;
}

export interface V1ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

const clientInfo = { name: "v1-host", version: "1.0.0" };

export async function connectV1Http(
  url: string,
  options: { token?: string; capabilities?: Record<string, unknown> } = {},
): Promise<V1Connection> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {},
  );
  return connect(transport, options.capabilities);
}

export async function connectV1Stdio(options: {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  capabilities?: Record<string, unknown>;
  /** Answers the server's elicitation/create requests, as a host showing a form to its user would. */
  onElicit?: (request: ElicitRequest["params"]) => Promise<ElicitResult>;
}): Promise<V1Connection> {
  const transport = new StdioClientTransport({
    command: options.command,
    args: options.args,
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stderr: "pipe",
  });
  return connect(transport, options.capabilities, options.onElicit);
}

async function connect(
  transport: Parameters<Client["connect"]>[0],
  capabilities: Record<string, unknown> = {},
  onElicit?: (request: ElicitRequest["params"]) => Promise<ElicitResult>,
): Promise<V1Connection> {
  const client = new Client(clientInfo, { capabilities });
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request.params));
  await client.connect(transport);
  // Hosts list tools first; the Client then checks every result against the listed output schemas.
  await client.listTools();
  const calls: string[] = [];
  return {
    client,
    calls,
    listTools: async () => (await client.listTools()).tools,
    async callTool(name, args, callOptions = {}) {
      calls.push(name);
      return (await client.callTool({ name, arguments: args }, undefined, {
        ...(callOptions.onprogress ? { onprogress: callOptions.onprogress } : {}),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      })) as V1ToolResult;
    },
    close: () => client.close(),
  };
}

/** What a model does with a handle: call task_status with its taskId until the job is no longer working. */
export async function followToEnd(connection: ToolClient, taskId: string, waitSeconds?: number): Promise<V1ToolResult> {
  for (let call = 0; call < 100; call += 1) {
    const result = await connection.callTool("task_status", {
      taskId,
      ...(waitSeconds !== undefined ? { waitSeconds } : {}),
    });
    if (result.structuredContent?.["status"] !== "working") return result;
  }
  throw new Error("the job was still working after 100 task_status calls");
}

export function textOf(result: V1ToolResult): string {
  return result.content.map((block) => block.text ?? "").join("\n");
}
