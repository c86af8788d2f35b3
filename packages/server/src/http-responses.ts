import type { ServerResponse } from "node:http";

export function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

export function writeJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * Answer a refused request (a bad token, a body too large, a foreign Host or Origin) and close its
 * connection: a client that sends such requests gains nothing from keeping sockets open, and a server
 * that kept them would hold one per refusal (and read the rest of an oversized body into nothing).
 */
export function writeRefusal(response: ServerResponse, status: number, body: unknown): void {
  // Connection: close makes Node end the socket once the answer is written, unread body or not.
  response.writeHead(status, { "content-type": "application/json", connection: "close" });
  response.end(JSON.stringify(body));
}
