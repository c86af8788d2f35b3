import { createRequire } from "node:module";
import { startDemoApi } from "@jobtasks/demo";
import { whileListening } from "./listen-error.js";
import { serve } from "./serve.js";
import { parsePort } from "./server-settings.js";

/**
 * The demo's config file, shared with `pnpm demo:serve`. It ships inside `@jobtasks/demo` and is found
 * through that package, so an installed `jobtasks demo` needs no checkout of the repository.
 */
export const demoConfigFile = createRequire(import.meta.url).resolve("@jobtasks/demo/jobtasks.config.yaml");

export interface DemoOptions {
  port?: number;
  host?: string;
  apiPort?: number;
  /**
   * Serve MCP on stdin/stdout (an agent host starts the process) instead of HTTP. The demo job API then
   * listens on a free port unless one is asked for, since a host may start several of these at once.
   */
  stdio?: boolean;
  /** As serve's logLevel (the --log-level flag). */
  logLevel?: string;
  environment?: Readonly<Record<string, string | undefined>>;
}

/**
 * `jobtasks demo`: the demo job API and an MCP server in front of it, in one process, and (over HTTP) a
 * printed walkthrough. Nothing here needs an account anywhere.
 */
export async function runDemo(options: DemoOptions = {}): Promise<{ close(): Promise<void> }> {
  const environment = options.environment ?? process.env;
  const stdio = options.stdio ?? false;
  const apiPortVariable = environment["DEMO_API_PORT"];
  const api = await whileListening(
    "DEMO_API_PORT",
    startDemoApi({
      port: options.apiPort ?? (apiPortVariable ? parsePort("DEMO_API_PORT", apiPortVariable) : stdio ? 0 : 4010),
      host: environment["DEMO_API_HOST"] || "127.0.0.1",
    }),
  );
  let server;
  try {
    server = await serve({
      config: demoConfigFile,
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.host !== undefined ? { host: options.host } : {}),
      stdio,
      ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
      environment: { ...environment, DEMO_API_URL: api.url },
    });
  } catch (error) {
    await api.close();
    throw error;
  }
  const close = async () => {
    await server.close();
    await api.close();
  };
  if (stdio) {
    // stdout carries MCP messages only. The host ends the session by closing stdin; the demo API would
    // otherwise keep this process alive after the host has gone.
    server.logger.info({ demoApi: api.url }, "demo job API started for this session");
    process.stdin.once("end", () => void close());
  } else {
    process.stdout.write(demoWalkthrough(server.url!, api.url));
  }
  return { close };
}

/** What `jobtasks demo` prints once both servers listen: how to connect, and how each kind of client follows a pipeline. */
export function demoWalkthrough(mcpUrl: string, apiUrl: string): string {
  return `
jobtasks demo is running (Ctrl-C stops it).

  MCP endpoint   ${mcpUrl}   (Streamable HTTP, protocol 2026-07-28, extension io.modelcontextprotocol/tasks)
  Demo job API   ${apiUrl}   (simulated CI pipelines: the "external system")

Connect a client (more in docs/connect-a-client.md):
  MCP Inspector 2.x (Node >= 22.19; more in docs/try-with-inspector.md):
      npx -y @modelcontextprotocol/inspector@2.12.0 --protocol-era modern --transport http --server-url ${mcpUrl}
  Claude Code (no tasks extension: it follows pipelines through task_status, see below):
      claude mcp add --transport http jobtasks-demo ${mcpUrl}
  Any stdio client (the host starts its own demo, with its own demo API, in one process):
      command: jobtasks   args: demo --stdio
  Cursor, VS Code and others: add ${mcpUrl} as a Streamable HTTP server (README "Connect a client").

Then call the tool demo_pipeline, for example with
      {"steps": 4, "stepMs": 2000, "approval": true}
  With the tasks extension (MCP Inspector 2.x --protocol-era modern, the ext-tasks requester):
  - the call answers at once with a task; tasks/get shows "step 1/4: checkout", ...
  - after the first step the task is input_required: approve (or reject) the deploy in the form;
  - {"fail": true} ends completed with isError and a log excerpt; tasks/cancel cancels the pipeline.
  Without it (Claude Code, Claude Desktop, Codex, Cursor, VS Code, the v1 SDK Client):
  - the call waits up to 3 s, then answers with a handle: structuredContent {taskId, status,
    statusMessage, pollIntervalMs, next} -- or with the pipeline's result when it finished by then, or
    with its approval question and the task_answer call when it asked one by then (this example does);
  - next names the call to make: task_status {"taskId": "<that id>"} waits up to 40 s and answers when the
    pipeline finishes (with its result) or asks for approval (with the question and the task_answer call);
  - task_answer with the taskId, the question's key, "action": "accept" and "content": {"approve": true}
    approves ("approve": false, or "action": "decline", rejects); task_cancel with the taskId cancels it.
  Both kinds of client share one id: tasks/get reads the id a handle carries.
  Nothing about tasks is stored by the MCP server: restart it with the demo API running apart (in a
  checkout of the repository: pnpm demo:api and pnpm demo:serve) and the same task id still answers. This
  command keeps the demo API in its own process, so stopping it also forgets the demo's jobs, as an
  upstream that lost its records would.
`;
}
