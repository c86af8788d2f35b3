import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { JsonRpcResponse, RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";

/**
 * The raw request path ext-tasks needs against a 2026-07-28 server: the v2 SDK Client rejects a
 * `resultType: "task"` answer and has no public hook for one, so framed requests go straight to the
 * Client's transport, and the answers to them are taken off the transport before the Client sees them.
 * Our request ids are strings ("raw-1", …); the Client numbers its own, so the two never collide.
 */
export interface RawDispatcher {
  dispatch: RawClientDispatch;
  /** Call once the Client is connected: it has set its own message handler by then. */
  install(): void;
  rejectAll(error: Error): void;
}

interface PendingRequest {
  resolve(response: JsonRpcResponse): void;
  reject(error: Error): void;
}

export function createRawDispatcher(transport: Transport, timeoutMs: number): RawDispatcher {
  const pending = new Map<string, PendingRequest>();
  let nextId = 0;
  let clientHandler: Transport["onmessage"];

  const route = (message: JSONRPCMessage, extra?: unknown) => {
    const id = (message as { id?: unknown }).id;
    const waiting = typeof id === "string" ? pending.get(id) : undefined;
    if (waiting && ("result" in message || "error" in message)) {
      pending.delete(id as string);
      const response = message as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
      waiting.resolve(
        (response.error
          ? { kind: "error", error: response.error }
          : { kind: "result", result: response.result }) as JsonRpcResponse,
      );
      return;
    }
    clientHandler?.(message, extra as never);
  };

  const dispatch: RawClientDispatch = (request, options) => {
    const id = `raw-${++nextId}`;
    const method = (request as { method?: string }).method ?? "request";
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const settle = (finish: () => void) => {
        clearTimeout(timer);
        options?.signal?.removeEventListener("abort", onAbort);
        pending.delete(id);
        finish();
      };
      const timer = setTimeout(
        () => settle(() => reject(new Error(`the server did not answer ${method} within ${timeoutMs / 1000} s`))),
        timeoutMs,
      );
      const onAbort = () => settle(() => reject(options?.signal?.reason ?? new Error("aborted")));
      options?.signal?.addEventListener("abort", onAbort, { once: true });
      pending.set(id, {
        resolve: (response) => settle(() => resolve(response)),
        reject: (error) => settle(() => reject(error)),
      });
      const headers = options?.context?.headers;
      const message = { ...(request as object), jsonrpc: "2.0", id } as JSONRPCMessage;
      transport
        .send(message, {
          ...(headers ? { headers } : {}),
          ...(options?.signal ? { requestSignal: options.signal } : {}),
        })
        .catch((error: unknown) => {
          pending.get(id)?.reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  };

  return {
    dispatch,
    install: () => {
      clientHandler = transport.onmessage;
      transport.onmessage = route;
    },
    rejectAll: (error) => {
      // A copy: each rejected request deletes itself from the map while the loop runs.
      // oxlint-disable-next-line unicorn/no-useless-spread
      for (const waiting of [...pending.values()]) waiting.reject(error);
    },
  };
}
