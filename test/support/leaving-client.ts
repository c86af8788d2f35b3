import type { JobTool } from "@jobtasks/core";
import { envelope, protocolVersion } from "./raw-rpc.js";

/**
 * A client that calls a tool over Streamable HTTP and leaves (closes the request) before the answer: the
 * tests of what a server and its adapters do with a job nobody will hold a task id for.
 */
export function callToolThenLeave(
  url: string,
  toolName: string,
  toolArguments: Record<string, unknown> = {},
): { answer: Promise<unknown>; leave(): void } {
  const client = new AbortController();
  const answer = fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": protocolVersion,
      "mcp-method": "tools/call",
      "mcp-name": toolName,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: toolName, arguments: toolArguments, _meta: envelope(true) },
    }),
    signal: client.signal,
  }).catch((error: unknown) => error);
  return { answer, leave: () => client.abort() };
}

/** Watch a tool's doStart from the server's side: when the server sees its client leave, and how doStart ended. */
export function observeStart(tool: JobTool): { clientLeft: Promise<void>; ended: () => Promise<"returned" | "threw"> } {
  const start = tool.doStart.bind(tool);
  let sawLeave!: () => void;
  const clientLeft = new Promise<void>((resolve) => (sawLeave = resolve));
  let ending: Promise<"returned" | "threw"> | undefined;
  tool.doStart = (input, context) => {
    context.signal.addEventListener("abort", () => sawLeave(), { once: true });
    const starting = start(input, context);
    ending = starting.then(
      () => "returned" as const,
      () => "threw" as const,
    );
    return starting;
  };
  return { clientLeft, ended: () => ending ?? Promise.reject(new Error("doStart was never called")) };
}

/** A fake upstream's answer held back until the test releases it: `hold` is what the fake awaits. */
export function heldAnswer(): { hold: () => Promise<void>; arrived: Promise<void>; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  return {
    hold: () => {
      arrive();
      return released;
    },
    arrived,
    release,
  };
}
