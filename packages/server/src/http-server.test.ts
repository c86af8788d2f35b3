import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { TaskIdSealer } from "./task-id.js";
import { BearerTokens } from "./auth.js";
import { TaskService } from "./task-service.js";
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from "./http-server.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";
import { capturingLogger } from "./test-support/capturing-logger.js";
import { maxRequestBodyBytes } from "./read-json-body.js";

/** The MCP endpoint's own checks, seen on the wire: headers, status codes, sockets and what is logged. */

let http: RunningHttpServer | undefined;
let service: TaskService | undefined;
afterEach(async () => {
  await http?.close();
  await service?.close();
  http = undefined;
  service = undefined;
});

async function start(options: Partial<HttpServerOptions> = {}) {
  const { logger, entries } = capturingLogger();
  service = new TaskService({
    adapters: [{ name: "scripted", adapter: createScriptedAdapter().adapter }],
    sealer: new TaskIdSealer({ secret: "http-server-test-secret-0123456789abcdef" }),
    logger,
  });
  http = await startHttpServer({ service, logger, name: "http-test", version: "1.0.0", port: 0, ...options });
  return { url: new URL(http.url), entries };
}

const toolsList = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "http-test", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});

interface WireAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Settles when the server has closed the connection the answer came on. */
  socketClosed: Promise<void>;
}

/** One POST over node:http, so the Host header, keep-alive and the socket are the test's to see. */
function post(
  url: URL,
  options: { headers?: Record<string, string>; body?: string; agent?: Agent } = {},
): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: "POST",
        agent: options.agent ?? false,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list",
          ...options.headers,
        },
      },
      (incoming) => {
        const socket = incoming.socket;
        const socketClosed = new Promise<void>((closed) =>
          socket.destroyed ? closed() : socket.once("close", () => closed()),
        );
        let body = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => (body += chunk));
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body, socketClosed }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body ?? toolsList);
  });
}

function requestHead(url: URL, headers: Record<string, string>): string {
  const lines = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    "content-type: application/json",
    "accept: application/json, text/event-stream",
    "mcp-protocol-version: 2026-07-28",
    "mcp-method: tools/list",
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

interface RawAnswer {
  /** Everything the server sent before it ended the connection. */
  text: string;
  error?: Error;
}

/**
 * One request on a raw socket that the client never ends: `closedByServer` settles only on the server's
 * FIN ('end') or a reset ('error', kept in the answer so a test can refuse it), with all bytes read.
 */
function rawExchange(url: URL, head: string, body: Buffer): { socket: Socket; closedByServer: Promise<RawAnswer> } {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  const chunks: Buffer[] = [];
  const closedByServer = new Promise<RawAnswer>((settle) => {
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("end", () => settle({ text: Buffer.concat(chunks).toString("utf8") }));
    socket.once("error", (error) => settle({ text: Buffer.concat(chunks).toString("utf8"), error }));
  });
  socket.write(head);
  socket.write(body);
  return { socket, closedByServer };
}

/** The body of a raw HTTP/1.1 answer, or an error when it was cut short (Content-Length or chunked). */
function completeBody(text: string): string {
  const split = text.indexOf("\r\n\r\n");
  const [head, rest] = [text.slice(0, split), text.slice(split + 4)];
  const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
  if (length !== undefined) {
    if (Buffer.byteLength(rest) !== Number(length))
      throw new Error(`answer cut short: ${Buffer.byteLength(rest)} of ${length} bytes`);
    return rest;
  }
  if (!/\r\ntransfer-encoding: chunked/i.test(head))
    throw new Error("answer with neither Content-Length nor chunked encoding");
  let body = "";
  for (let at = 0; ;) {
    const sizeEnd = rest.indexOf("\r\n", at);
    if (sizeEnd < 0) throw new Error("answer cut short inside its chunks");
    const size = parseInt(rest.slice(at, sizeEnd), 16);
    if (size === 0) {
      if (rest.slice(sizeEnd) !== "\r\n\r\n") throw new Error("answer without the end of its last chunk");
      return body;
    }
    body += rest.slice(sizeEnd + 2, sizeEnd + 2 + size);
    at = sizeEnd + 2 + size + 2;
  }
}

describe("Origin", () => {
  it("refuses a present Origin that is neither loopback nor allowed with 403, before any MCP handling", async () => {
    const { url } = await start();
    const refused = await post(url, { headers: { origin: "https://evil.example" } });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringContaining("Origin") },
    });
    expect((await post(url, { headers: { origin: "null" } })).status).toBe(403);
  });

  it("lets loopback origins talk to a loopback server, and requests without an Origin through", async () => {
    const { url } = await start();
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:6274", "http://127.3.2.1", "http://[::1]:8080"]) {
      const answer = await post(url, { headers: { origin } });
      expect(answer.status, origin).toBe(200);
      expect(answer.body).toContain("scripted_job");
    }
    expect((await post(url)).status).toBe(200);
  });

  it("allows exactly the configured origins (scheme, host and port)", async () => {
    const { url } = await start({ allowedOrigins: ["https://app.example.com"] });
    expect((await post(url, { headers: { origin: "https://app.example.com" } })).status).toBe(200);
    expect((await post(url, { headers: { origin: "https://app.example.com:8443" } })).status).toBe(403);
    expect((await post(url, { headers: { origin: "http://app.example.com" } })).status).toBe(403);
  });

  it("refuses an allowedOrigins entry that is not an origin at start-up, naming the entry", async () => {
    await expect(start({ allowedOrigins: ["https://app.example.com/console"] })).rejects.toThrow(/allowedOrigins\[0\]/);
    await expect(start({ allowedOrigins: ["*"] })).rejects.toThrow(/allowedOrigins\[0\]/);
  });
});

describe("Host validation", () => {
  it("protects a server on any loopback address, not only 127.0.0.1", async () => {
    const { url } = await start({ host: "127.0.0.2" });
    expect((await post(url)).status).toBe(200);
    const rebound = await post(url, { headers: { host: `attacker.example:${url.port}` } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: -32000 } });
    expect((await post(url, { headers: { host: `localhost:${url.port}` } })).status).toBe(200);
  });
});

describe("request bodies", () => {
  it("answers JSON nested 5,000 deep with 400 and a JSON-RPC error, and logs no error", async () => {
    const { url, entries } = await start();
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"nested":${deep}}}`;
    const answer = await post(url, { body });
    expect(answer.status).toBe(400);
    const error = (JSON.parse(answer.body) as { error: { code: number } }).error;
    expect([-32700, -32600]).toContain(error.code);
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
  });

  it("logs a client that leaves mid-body below error level, without a stack", async () => {
    const { url, entries } = await start();
    const outgoing = httpRequest(url, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": "1000" },
    });
    outgoing.on("error", () => undefined);
    outgoing.write('{"jsonrpc":"2.0",', () => setImmediate(() => outgoing.destroy()));
    await vi.waitFor(() => expect(entries.length).toBeGreaterThan(0), { timeout: 5000 });
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    expect(entries.every((entry) => entry.err?.stack === undefined)).toBe(true);
  });
});

describe("rejected requests", () => {
  it("close their keep-alive connection after a 401", async () => {
    const { url } = await start({ tokens: BearerTokens.parse("alice:alice-token-0123456789") });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await post(url, { agent });
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).toBe("close");
      await refused.socketClosed;
    } finally {
      agent.destroy();
    }
  });

  it("close their keep-alive connection after a 413: the whole answer, then the server's end of the socket", async () => {
    const { url } = await start();
    // Announce more than the bound, send just past it, then wait: only the server can end this connection.
    const announced = maxRequestBodyBytes + 1024 * 1024;
    const exchange = rawExchange(
      url,
      requestHead(url, { "content-length": String(announced) }),
      Buffer.alloc(maxRequestBodyBytes + 64 * 1024, "x"),
    );
    const answer = await exchange.closedByServer;
    expect(answer.error).toBeUndefined();
    expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(completeBody(answer.text))).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32600, message: expect.stringContaining(String(maxRequestBodyBytes)) },
    });
  });

  it("hold none of 50 keep-alive connections refused with a bad token: the server closes each after its 401", async () => {
    const { url } = await start({ tokens: BearerTokens.parse("alice:alice-token-0123456789") });
    const head = requestHead(url, {
      authorization: "Bearer not-a-token",
      connection: "keep-alive",
      "content-length": String(Buffer.byteLength(toolsList)),
    });
    const exchanges = Array.from({ length: 50 }, () => rawExchange(url, head, Buffer.from(toolsList)));
    // Bounded: a server that held them would leave every wait below pending until the 5 s timer.
    const closed = await Promise.race([
      Promise.all(exchanges.map((exchange) => exchange.closedByServer)),
      new Promise<"still open">((settle) => setTimeout(() => settle("still open"), 5000).unref()),
    ]);
    exchanges.forEach((exchange) => exchange.socket.destroy());
    expect(closed).not.toBe("still open");
    for (const answer of closed as RawAnswer[]) {
      expect(answer.error).toBeUndefined();
      expect(answer.text).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer.text).toContain("Unauthorized");
    }
  });
});
