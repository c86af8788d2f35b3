import type { IncomingMessage } from "node:http";

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
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > maxRequestBodyBytes) {
        return {
          ok: false,
          status: 413,
          code: -32600,
          message: `Request body larger than ${maxRequestBodyBytes} bytes`,
        };
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (request.destroyed || (error as NodeJS.ErrnoException).code === "ECONNRESET")
      return { ok: false, clientGone: true };
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the request body is not JSON" };
  }
  if (nestsDeeperThan(value, maxRequestJsonDepth)) {
    return {
      ok: false,
      status: 400,
      code: -32600,
      message: `Invalid Request: JSON nested deeper than ${maxRequestJsonDepth} levels`,
    };
  }
  return { ok: true, value };
}

/** Whether `value` nests arrays and objects more than `limit` levels deep. Iterative, so it never overflows. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) {
      if (inner !== null && typeof inner === "object") pending.push([inner, depth + 1]);
    }
  }
  return false;
}
