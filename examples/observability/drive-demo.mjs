// Traffic for the dashboard: starts demo pipelines and polls them as agents would, until interrupted.
// Usage: node examples/observability/drive-demo.mjs [MCP URL] (default http://127.0.0.1:3000/mcp)
// Plain JSON-RPC over HTTP with the 2026-07-28 framing; a pipeline that asks for its approval is approved.

const url = process.argv[2] ?? "http://127.0.0.1:3000/mcp";
const protocolVersion = "2026-07-28";
const meta = {
  "io.modelcontextprotocol/protocolVersion": protocolVersion,
  "io.modelcontextprotocol/clientInfo": { name: "drive-demo", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
let nextId = 1;

async function call(method, params, name) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": protocolVersion,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  const data = text.includes("data:")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .at(-1)
        .slice(5)
    : text;
  return JSON.parse(data);
}

async function followOnePipeline() {
  const created = await call("tools/call", { name: "demo_pipeline", arguments: {} }, "demo_pipeline");
  const taskId = created.result?.taskId;
  if (typeof taskId !== "string") throw new Error(`no task: ${JSON.stringify(created).slice(0, 200)}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const task = (await call("tasks/get", { taskId }, taskId)).result;
    if (task?.status === "input_required") {
      const inputResponses = Object.fromEntries(
        Object.keys(task.inputRequests ?? {}).map((key) => [key, { action: "accept", content: { approve: true } }]),
      );
      await call("tasks/update", { taskId, inputResponses }, taskId);
    }
    if (["completed", "failed", "cancelled"].includes(task?.status)) return;
  }
}

// A few agents at once, each following one pipeline after another; now and then a poll of an id that
// does not open, so the error panels have something to show.
const agents = Number(process.env.DRIVE_AGENTS ?? 4);
setInterval(() => void call("tasks/get", { taskId: "not-a-task-id" }, "not-a-task-id").catch(() => {}), 5000);
await Promise.all(
  Array.from({ length: agents }, async () => {
    for (;;) await followOnePipeline().catch((error) => process.stderr.write(`${String(error)}\n`));
  }),
);
