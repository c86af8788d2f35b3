import type { IncomingMessage } from "node:http";
import { parseBoundedJson, type JsonRead } from "@jobtasks/core/adapter-utils";

/** The SDK's own bound on request bodies; kept the same so behaviour does not depend on who reads. */
export const maxRequestBodyBytes = 4 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects accepted in a request. JSON.parse reads any depth, but what comes
 * after it (the SDK re-serialises the body, zod walks it) recurses and overflows the stack a few thousand
 * levels down; no MCP request comes near this bound.
 */
export const maxRequestJsonDepth = 256;

export type JsonBody =
  | { ok: true; value: unknown }
  | { ok: false; status: number; code: number; message: string }
  /** The client closed the connection before its body arrived: nobody is left to answer. */
  | { ok: false; clientGone: true };

/**
 * Read and parse a JSON request body, refusing oversized, unparsable or too deep ones with a JSON-RPC error.
 * A chain of two promises rather than an async function awaiting a third (readRequestText says why).
 */
export function readJsonBody(request: IncomingMessage): Promise<JsonBody> {
  return readRequestText(request, maxRequestBodyBytes).then(
    (text) =>
      jsonBodyOf(
        text === undefined ? { ok: false, problem: "too-large" } : parseBoundedJson(text, maxRequestJsonDepth),
      ),
    (error: unknown) => {
      if (request.destroyed || (error as NodeJS.ErrnoException).code === "ECONNRESET")
        return { ok: false, clientGone: true };
      throw error;
    },
  );
}

function jsonBodyOf(read: JsonRead): JsonBody {
  if (read.ok) return { ok: true, value: read.value };
  if (read.problem === "too-large") {
    return { ok: false, status: 413, code: -32600, message: `Request body larger than ${maxRequestBodyBytes} bytes` };
  }
  if (read.problem === "too-deep") {
    return {
      ok: false,
      status: 400,
      code: -32600,
      message: `Invalid Request: JSON nested deeper than ${maxRequestJsonDepth} levels`,
    };
  }
  return { ok: false, status: 400, code: -32700, message: "Parse error: the request body is not JSON" };
}

/**
 * The body's text, or undefined once it passes `maxBytes`: reading stops there, the rest unread. A stream error is thrown as it is; a request closed before its end (the
 * client left) is thrown as ECONNRESET.
 *
 * Listeners rather than `for await`: a stream's async iterator makes a dozen promises for a one-chunk
 * body, and on Node 20 and 22 every promise pays the async context's hooks once telemetry has entered a
 * context (this was half the promises a poll made).
 */
export function readRequestText(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const clientGone = () =>
      Object.assign(new Error("the client closed the connection before its request body arrived"), {
        code: "ECONNRESET",
      });
    // Read to its end already (nothing here does that): no "end" would come, so it is the empty body it now is.
    if (request.readableEnded) {
      resolve("");
      return;
    }
    if (request.destroyed) {
      reject(clientGone());
      return;
    }
    const stop = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("close", onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) {
        // Read no further; the refusal's Connection: close ends the socket once it is written.
        stop();
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => {
      stop();
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // "close" before "end": the connection went before the body was whole.
    const onClose = () => {
      stop();
      reject(clientGone());
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("close", onClose);
  });
}
