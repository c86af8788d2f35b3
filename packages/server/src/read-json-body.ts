import type { IncomingMessage } from "node:http";

/** The SDK's own bound on request bodies; kept the same so behaviour does not depend on who reads. */
export const maxRequestBodyBytes = 4 * 1024 * 1024;

export type JsonBody =
  | { ok: true; value: unknown }
  | { ok: false; status: number; code: number; message: string };

/** Read and parse a JSON request body, refusing oversized or unparsable ones with a JSON-RPC error. */
export async function readJsonBody(request: IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxRequestBodyBytes) {
      return { ok: false, status: 413, code: -32600, message: `Request body larger than ${maxRequestBodyBytes} bytes` };
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the request body is not JSON" };
  }
}
