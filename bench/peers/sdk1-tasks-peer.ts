import { z } from "@jobtasks/core";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/**
 * The server a competent engineer would write instead of jobtasks, on the MCP TypeScript SDK 1.x and its
 * experimental tasks: a `demo_pipeline` tool registered with `registerToolTask` that starts a job on the
 * demo job API, an `InMemoryTaskStore` that tasks/get answers from, and one poller per task that reads the
 * job every `pollIntervalMs` and writes its status into the store. Stateless Streamable HTTP, as the SDK
 * recommends for horizontally scaled servers: one McpServer and transport per request.
 *
 * Tuned as that engineer would tune it: one store and one JSON-schema validator (Ajv compiles each
 * schema once) shared by every per-request server; JSON answers instead of SSE streams; the body parsed
 * once and handed to the transport; the tool's input schema built once.
 */

export interface PeerOptions {
  /** The demo job API, e.g. http://127.0.0.1:4010. */
  demoApiUrl: string;
  /** How often each task's poller reads its job. Default 1000 ms, what the demo adapter suggests. */
  pollIntervalMs?: number;
}

export interface RunningPeer {
  url: string;
  /** Reads of the demo API made by the pollers so far. */
  upstreamReads(): number;
  /** Tasks whose poller is still running. */
  activePollers(): number;
  close(): Promise<void>;
}

type DemoJob = { id: string; status: string; currentStep: number; totalSteps: number; logs: string[] };

const terminal = new Set(["succeeded", "failed", "rejected", "cancelled"]);
const inputShape = {
  steps: z.number().int().min(1).max(50).default(3),
  stepMs: z.number().int().min(0).max(600_000).default(1000),
};

export async function startSdk1TasksPeer(options: PeerOptions): Promise<RunningPeer> {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const taskStore = new InMemoryTaskStore();
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const pollers = new Map<string, NodeJS.Timeout>();
  let reads = 0;

  const poll = (taskId: string, jobId: string) => {
    const timer = setInterval(() => {
      reads += 1;
      void fetch(`${options.demoApiUrl}/jobs/${jobId}`)
        .then(async (response) => (await response.json()) as DemoJob)
        .then(async (job) => {
          if (!pollers.has(taskId)) return;
          const message = `step ${job.currentStep}/${job.totalSteps}: ${job.status}`;
          if (!terminal.has(job.status))
            return taskStore.updateTaskStatus(
              taskId,
              job.status === "waiting_for_approval" ? "input_required" : "working",
              message,
            );
          clearInterval(timer);
          pollers.delete(taskId);
          return taskStore.storeTaskResult(taskId, job.status === "succeeded" ? "completed" : "failed", {
            content: [{ type: "text", text: `${message}\n${job.logs.slice(-5).join("\n")}` }],
            ...(job.status === "succeeded" ? {} : { isError: true }),
          });
        })
        // An outage leaves the task as it was; the next tick tries again.
        .catch(() => undefined);
    }, pollIntervalMs);
    pollers.set(taskId, timer);
  };

  const createPeerServer = () => {
    const server = new McpServer(
      { name: "sdk1-tasks-peer", version: "1.0.0" },
      { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore, jsonSchemaValidator },
    );
    server.experimental.tasks.registerToolTask(
      "demo_pipeline",
      { description: "Run a demo pipeline as a task", inputSchema: inputShape },
      {
        async createTask(args, { taskStore: requestStore, taskRequestedTtl }) {
          const response = await fetch(`${options.demoApiUrl}/jobs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ steps: args.steps, stepMs: args.stepMs }),
          });
          const job = (await response.json()) as DemoJob;
          const task = await requestStore.createTask({
            ttl: taskRequestedTtl ?? 3_600_000,
            pollInterval: pollIntervalMs,
          });
          poll(task.taskId, job.id);
          return { task };
        },
        getTask: async (_args, { taskId, taskStore: requestStore }) => (await requestStore.getTask(taskId))!,
        getTaskResult: async (_args, { taskId, taskStore: requestStore }) =>
          (await requestStore.getTaskResult(taskId)) as never,
      },
    );
    return server;
  };

  const http = createServer((request, response) => void serve(request, response));
  async function serve(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      response
        .writeHead(400, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const server = createPeerServer();
    // No sessionIdGenerator: stateless, one transport per request.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    upstreamReads: () => reads,
    activePollers: () => pollers.size,
    close: async () => {
      for (const timer of pollers.values()) clearInterval(timer);
      pollers.clear();
      taskStore.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
