/**
 * Raw JSON-RPC over Streamable HTTP, written out by hand so that the protocol-rule tests see the exact wire:
 * headers, status codes, and bodies, with nothing in between that could mend or hide a mistake.
 */

export const tasksExtensionId = "io.modelcontextprotocol/tasks";
export const protocolVersion = "2026-07-28";

export interface RawCallOptions {
  /** Declare the tasks extension in this request's _meta capabilities. Default true. */
  tasks?: boolean;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Leave out the Mcp-Name header that 2026-07-28 requires on tools/call and tasks/*. */
  omitMcpName?: boolean;
  /** Leave out Mcp-Method. */
  omitMcpMethod?: boolean;
  /** Extra or replacing headers. */
  headers?: Record<string, string>;
  /** Replace the _meta envelope entirely (for malformed-request tests). */
  meta?: Record<string, unknown>;
}

export interface RawResponse {
  httpStatus: number;
  headers: Headers;
  /** The raw body, for checks that nothing secret leaks. */
  text: string;
  /** The parsed JSON-RPC message, or undefined when the body was not JSON. */
  body: JsonRpcMessage | undefined;
}

export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

let nextId = 1;

export function envelope(tasks: boolean): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": protocolVersion,
    "io.modelcontextprotocol/clientInfo": { name: "raw-e2e", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [tasksExtensionId]: {} } } : {},
  };
}

/** The value Mcp-Name carries for a method: the tool name for tools/call, the task id for tasks/*. */
function mcpName(method: string, params: Record<string, unknown>): string | undefined {
  if (method === "tools/call" && typeof params["name"] === "string") return params["name"];
  if (method.startsWith("tasks/") && typeof params["taskId"] === "string") return params["taskId"];
  return undefined;
}

export async function rawCall(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RawCallOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": protocolVersion,
  };
  if (!options.omitMcpMethod) headers["mcp-method"] = method;
  const name = mcpName(method, params);
  if (name !== undefined && !options.omitMcpName) headers["mcp-name"] = name;
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`;
  Object.assign(headers, options.headers ?? {});
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: { ...params, _meta: options.meta ?? envelope(options.tasks ?? true) },
  };
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return {
    httpStatus: response.status,
    headers: response.headers,
    text,
    body: parseMessage(text, response.headers.get("content-type")),
  };
}

/** A JSON body, or the last `data:` line of an SSE body (the server may answer either way). */
function parseMessage(text: string, contentType: string | null): JsonRpcMessage | undefined {
  try {
    if (contentType?.includes("text/event-stream")) {
      const data = text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .filter((line) => line !== "");
      const last = data.at(-1);
      return last === undefined ? undefined : (JSON.parse(last) as JsonRpcMessage);
    }
    return JSON.parse(text) as JsonRpcMessage;
  } catch {
    return undefined;
  }
}

/** The result of a successful call; fails the test with the error otherwise. */
export async function rawResult(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RawCallOptions = {},
) {
  const response = await rawCall(url, method, params, options);
  if (!response.body?.result) {
    throw new Error(`${method} did not succeed: HTTP ${response.httpStatus} ${response.text.slice(0, 500)}`);
  }
  return response.body.result;
}

/** The error of a failed call; fails the test when the call succeeded. */
export async function rawError(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RawCallOptions = {},
) {
  const response = await rawCall(url, method, params, options);
  if (!response.body?.error) {
    throw new Error(`${method} was expected to fail: HTTP ${response.httpStatus} ${response.text.slice(0, 500)}`);
  }
  return response.body.error;
}

/** Call `read` until `done` says yes, or fail after `timeoutMs` (generous: CI machines may be loaded). */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    last = await read();
  }
  return last;
}
