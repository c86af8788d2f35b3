import { ConfigError } from "@jobtasks/core";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createDemoJobRunner } from "./demo-job-runner.js";
import { parseApprovalBody, parseCreateJobBody, parseFaultBody } from "./demo-api-requests.js";

export interface DemoApiOptions {
  /** TCP port; 0 picks any free port (what tests want). Default 4010. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1: the demo has no authentication, keep it off the network. */
  host?: string;
  /** Longest time a new job stays queued (never longer than one step). Default 500 ms. */
  queueDelayMs?: number;
  /** Time between a cancel request and the job showing cancelled. Default 200 ms. */
  cancelDelayMs?: number;
  /** How long a finished job stays readable. Default 24 h, the rule the demo adapter declares. */
  retentionMs?: number;
}

export interface RunningDemoApi {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:4010. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const maximumBodyBytes = 64 * 1024;
const jobPath = /^\/jobs\/([A-Za-z0-9_-]+)(?:\/(approval|cancel))?$/;

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maximumBodyBytes) throw new BadRequest(413, `body: larger than ${maximumBodyBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest(400, "body: not valid JSON");
  }
}

/**
 * Start the demo job API: a stand-in for a CI system that keeps its jobs in memory. See README.md for the
 * HTTP contract. Resolves once the server listens.
 */
export async function startDemoApi(options: DemoApiOptions = {}): Promise<RunningDemoApi> {
  const runner = createDemoJobRunner({
    queueDelayMs: options.queueDelayMs ?? 500,
    cancelDelayMs: options.cancelDelayMs ?? 200,
    retentionMs: options.retentionMs ?? 24 * 60 * 60 * 1000,
  });
  const fault = { status: 0, remaining: 0, retryAfterSeconds: undefined as number | undefined };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://demo.invalid").pathname;

    if (path === "/healthz" && method === "GET") return send(response, 200, { ok: true });
    if (path === "/_faults" && method === "POST") {
      const parsed = parseFaultBody(await readJson(request));
      if (!parsed.ok) return send(response, 400, { error: "invalid_request", message: parsed.message });
      const { status, count, retryAfterSeconds } = parsed.value;
      Object.assign(fault, { status, remaining: count, retryAfterSeconds });
      return send(response, 200, { ok: true, status, count });
    }

    const isJobsPath = path === "/jobs" || path.startsWith("/jobs/");
    if (isJobsPath && fault.remaining > 0) {
      fault.remaining -= 1;
      const retryAfter = fault.retryAfterSeconds ?? (fault.status === 429 || fault.status === 503 ? 1 : undefined);
      const headers: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
      return send(
        response,
        fault.status,
        { error: "injected_fault", message: "fault injected by POST /_faults" },
        headers,
      );
    }

    if (path === "/jobs") {
      if (method !== "POST") return send(response, 405, { error: "method_not_allowed" }, { allow: "POST" });
      const parsed = parseCreateJobBody(await readJson(request));
      if (!parsed.ok) return send(response, 400, { error: "invalid_request", message: parsed.message });
      return send(response, 201, runner.create(parsed.value));
    }

    const match = jobPath.exec(path);
    if (!match) return send(response, 404, { error: "not_found" });
    const [, jobId = "", action] = match;
    const expectedMethod = action ? "POST" : "GET";
    if (method !== expectedMethod)
      return send(response, 405, { error: "method_not_allowed" }, { allow: expectedMethod });

    if (action === "approval") {
      const parsed = parseApprovalBody(await readJson(request));
      if (!parsed.ok) return send(response, 400, { error: "invalid_request", message: parsed.message });
      const outcome = runner.answerApproval(jobId, parsed.value);
      if (!outcome) return send(response, 404, { error: "not_found" });
      if ("conflict" in outcome) return send(response, 409, { error: "conflict", message: outcome.conflict });
      return send(response, 200, outcome.record);
    }
    if (action === "cancel") {
      const outcome = runner.requestCancel(jobId);
      if (!outcome) return send(response, 404, { error: "not_found" });
      if ("conflict" in outcome) return send(response, 409, { error: "conflict", message: outcome.conflict });
      return send(response, 202, outcome.record);
    }
    const record = runner.get(jobId);
    return record ? send(response, 200, record) : send(response, 404, { error: "not_found" });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return response.destroy();
      if (error instanceof BadRequest) {
        return send(response, error.status, { error: "invalid_request", message: error.message });
      }
      send(response, 500, { error: "internal", message: "the demo API failed unexpectedly" });
    });
  });

  const host = options.host ?? "127.0.0.1";
  const requestedPort = options.port ?? 4010;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      // Said plainly: a taken port is the one start-up failure people meet often.
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError(
              "DEMO_API_PORT",
              `${host}:${requestedPort} is already in use; choose another port (DEMO_API_PORT or --api-port)`,
            )
          : error,
      );
    };
    server.once("error", onError);
    server.listen(requestedPort, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    async close() {
      runner.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
