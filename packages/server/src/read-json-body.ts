import type { IncomingMessage } from "node:http";
import { type JsonRead, readBoundedJson } from "@jobtasks/core/adapter-utils";

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

/** Read and parse a JSON request body, refusing oversized, unparsable or too deep ones with a JSON-RPC error. */
export async function readJsonBody(request: IncomingMessage): Promise<JsonBody> {
  let read: JsonRead;
  try {
    read = await readBoundedJson(request, { maxBytes: maxRequestBodyBytes, maxDepth: maxRequestJsonDepth });
  } catch (error) {
    if (request.destroyed || (error as NodeJS.ErrnoException).code === "ECONNRESET")
      return { ok: false, clientGone: true };
    throw error;
  }
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
