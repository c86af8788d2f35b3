import { createServer, request as forward, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback upstream that can be switched into a lasting outage: every request then gets a 503, or has its
 * connection dropped before any answer. While healthy it forwards to another loopback server (the fakes of
 * support/) or answers with `answer`. It counts what reaches it, so a test can say how many upstream
 * requests one tasks/get cost.
 */

export type Outage = "503" | "dropped connection";

export interface FaultyUpstream {
  url: string;
  /** The outage in force, or undefined while healthy. */
  outage: Outage | undefined;
  /** Requests received (method and path), healthy or not, in order. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

export type HealthyAnswer = (method: string, path: string, body: string) => { status: number; body: unknown };

export async function startFaultyUpstream(
  healthy: { forwardTo: string } | { answer: HealthyAnswer },
): Promise<FaultyUpstream> {
  const upstream: FaultyUpstream = { url: "", outage: undefined, requests: [], close: async () => {} };
  const server = createServer(async (incoming, response) => {
    upstream.requests.push({ method: incoming.method ?? "GET", path: incoming.url ?? "/" });
    const body = await readBody(incoming);
    if (upstream.outage === "dropped connection") return void incoming.socket.destroy();
    if (upstream.outage === "503") {
      response.writeHead(503, { "content-type": "application/json" });
      return void response.end(JSON.stringify({ message: "Service Unavailable" }));
    }
    if ("answer" in healthy) {
      const answer = healthy.answer(incoming.method ?? "GET", incoming.url ?? "/", body);
      response.writeHead(answer.status, { "content-type": "application/json" });
      return void response.end(JSON.stringify(answer.body));
    }
    relay(healthy.forwardTo, incoming, body, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return upstream;
}

function relay(origin: string, incoming: IncomingMessage, body: string, response: ServerResponse): void {
  const target = new URL(incoming.url ?? "/", origin);
  const headers = { ...incoming.headers, host: target.host };
  const outgoing = forward(target, { method: incoming.method, headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  outgoing.on("error", () => response.destroy());
  outgoing.end(body);
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
