import { ConfigError, type CallToolResult } from "@jobtasks/core";
import type { ToolRegistry } from "./tool-registry.js";
import { waitForResult, type WaitForResultOptions } from "./wait-for-result.js";

export interface SynchronousCallsOptions {
  /** Per tool name, overriding the tool's own synchronousWaitMs. Every name must be a tool of the registry. */
  synchronousWaitMs?: Readonly<Record<string, number>> | undefined;
  /** Synchronous calls (each holds a request open while it waits) served at once. Default 32. */
  maxSynchronousCalls?: number | undefined;
}

/**
 * The wait mode for clients without the tasks extension: which tools may be called synchronously and for how
 * long, a bound on the calls waiting at once, and the wait for the plain result.
 */
export class SynchronousCalls {
  readonly #waitMs: Readonly<Record<string, number>>;
  readonly #maxCalls: number;
  #calls = 0;

  constructor(registry: ToolRegistry, options: SynchronousCallsOptions) {
    this.#waitMs = options.synchronousWaitMs ?? {};
    this.#maxCalls = options.maxSynchronousCalls ?? 32;
    for (const [index, name] of Object.keys(this.#waitMs).entries()) {
      if (!registry.tool(name)) {
        const known = registry.tools.map((tool) => tool.tool.name).join(", ");
        throw new ConfigError(
          `server.synchronousWaitMs.${name}`,
          `no adapter offers a tool named "${name}" (entry ${index + 1}); tools: ${known}`,
        );
      }
    }
  }

  /** How long a synchronous call of this tool may wait: the server's setting, else the tool's; undefined when it may not. */
  waitMsFor(name: string, toolWaitMs: number | undefined): number | undefined {
    return this.#waitMs[name] ?? toolWaitMs;
  }

  /** Run a synchronous call, or refuse it at once (before anything starts upstream) when too many are waiting. */
  async admit<T>(call: () => Promise<T>): Promise<T | CallToolResult> {
    if (this.#calls >= this.#maxCalls) {
      // Checked before starting anything: refusing costs nothing upstream.
      return {
        content: [
          {
            type: "text",
            text: `The server is already waiting for ${this.#maxCalls} synchronous calls; try again shortly, or use a client with the tasks extension.`,
          },
        ],
        isError: true,
      };
    }
    this.#calls += 1;
    try {
      return await call();
    } finally {
      this.#calls -= 1;
    }
  }

  /** Wait for a started job's plain result (see waitForResult). */
  waitForResult(options: WaitForResultOptions): Promise<CallToolResult> {
    return waitForResult(options);
  }
}
