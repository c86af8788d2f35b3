import { demoAdapter, startDemoApi, type RunningDemoApi } from "@jobtasks/demo";
import { restAdapter } from "@jobtasks/rest";
import type { AnyJobAdapter } from "@jobtasks/core";
import { startInProcessServer, type InProcessServer } from "./in-process-server.js";

/**
 * The demo job API and a jobtasks server for it, both in this process on free loopback ports. The API
 * queues and cancels quickly and the adapter suggests a short poll interval, so a whole pipeline takes a
 * fraction of a second.
 */

export interface DemoStack {
  api: RunningDemoApi;
  server: InProcessServer;
  close(): Promise<void>;
}

export async function startDemoApiForTests(): Promise<RunningDemoApi> {
  return startDemoApi({ port: 0, host: "127.0.0.1", queueDelayMs: 0, cancelDelayMs: 20 });
}

/** The two adapters that serve the demo: the hand-written one, and the REST adapter's demo-api preset. */
export type DemoAdapterKind = "demo" | "rest";

export function createDemoAdapter(kind: DemoAdapterKind, baseUrl: string): AnyJobAdapter {
  if (kind === "demo") return demoAdapter({ baseUrl, pollIntervalMs: 20 });
  return restAdapter({
    preset: "demo-api",
    baseUrl,
    polling: { initialIntervalMs: 20, multiplier: 1.5, maxIntervalMs: 100 },
  } as Parameters<typeof restAdapter>[0]);
}

export async function startDemoStack(options: { tokens?: string; adapter?: DemoAdapterKind } = {}): Promise<DemoStack> {
  const api = await startDemoApiForTests();
  try {
    const server = await startInProcessServer({
      adapters: [{ name: "demo", adapter: createDemoAdapter(options.adapter ?? "demo", api.url) }],
      // The demo's real settings: a short cache is part of what a client sees.
      service: { snapshotCacheMs: 10 },
      ...(options.tokens ? { tokens: options.tokens } : {}),
    });
    return {
      api,
      server,
      close: async () => {
        await server.close();
        await api.close();
      },
    };
  } catch (error) {
    await api.close();
    throw error;
  }
}
