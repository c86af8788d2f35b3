import { envelope, protocolVersion, type JsonRpcMessage } from "./raw-rpc.js";

/**
 * A raw `subscriptions/listen` for task notifications over Streamable HTTP: the server answers with an SSE
 * stream that stays open while the followed tasks can still change. Messages are collected as they arrive.
 */

export interface ListenMessage extends JsonRpcMessage {
  method?: string;
  params?: Record<string, any>;
}

export interface ListenStream {
  httpStatus: number;
  contentType: string | null;
  messages: ListenMessage[];
  /** Resolves when the stream has ended (the server closed it). */
  ended: Promise<void>;
  /** Wait until a collected message satisfies the predicate. */
  waitFor(predicate: (message: ListenMessage) => boolean, timeoutMs?: number): Promise<ListenMessage>;
  close(): Promise<void>;
}

let nextId = 1;

export interface ListenOptions {
  tasks?: boolean;
  token?: string;
  /** Replace the Mcp-Method header (undefined leaves it out). Default "subscriptions/listen". */
  mcpMethod?: string | undefined;
}

export async function openListenStream(
  url: string,
  taskIds: unknown[],
  options: ListenOptions = {},
): Promise<ListenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": protocolVersion,
  };
  const mcpMethod = "mcpMethod" in options ? options.mcpMethod : "subscriptions/listen";
  if (mcpMethod !== undefined) headers["mcp-method"] = mcpMethod;
  if (options.token) headers["authorization"] = `Bearer ${options.token}`;
  const body = {
    jsonrpc: "2.0",
    id: `listen-${nextId++}`,
    method: "subscriptions/listen",
    params: { notifications: { taskIds }, _meta: envelope(options.tasks ?? true) },
  };
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: abort.signal });
  const messages: ListenMessage[] = [];
  const contentType = response.headers.get("content-type");

  const ended = (async () => {
    if (!contentType?.includes("text/event-stream")) {
      messages.push(JSON.parse(await response.text()) as ListenMessage);
      return;
    }
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let boundary = buffer.indexOf("\n\n");
        while (boundary >= 0) {
          const event = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const data = event
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trim())
            .join("\n");
          if (data !== "") messages.push(JSON.parse(data) as ListenMessage);
          boundary = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  ended.catch(() => undefined);

  return {
    httpStatus: response.status,
    contentType,
    messages,
    ended,
    // Generous for a loaded CI machine; still well inside vitest's 20 s test timeout.
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(predicate);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages).slice(0, 800)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      abort.abort();
      await ended.catch(() => undefined);
    },
  };
}
