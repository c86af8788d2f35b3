import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ToolClient, V1ToolResult } from "./v1-client.js";

/**
 * A 2026-07-28 client (the v2 SDK Client, pinned to the new protocol) that does not declare the tasks
 * extension: a modern host that simply never added it. It gets what a v1 client gets: handles.
 */
export async function connectModernWithoutTasks(url: string): Promise<ToolClient & { client: Client }> {
  const client = new Client(
    { name: "modern-host", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  const calls: string[] = [];
  return {
    client,
    calls,
    listTools: async () => (await client.listTools()).tools,
    async callTool(name, args, options = {}) {
      calls.push(name);
      return (await client.callTool(
        { name, arguments: args },
        {
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      )) as V1ToolResult;
    },
    close: () => client.close(),
  };
}
