import { randomBytes } from "node:crypto";
import type { AnyJobAdapter } from "@jobtasks/core";
import {
  BearerTokens,
  TaskIdSealer,
  TaskService,
  createSilentLogger,
  startHttpServer,
  type HttpServerOptions,
  type Logger,
  type RunningHttpServer,
  type TaskServiceOptions,
} from "@jobtasks/server";

/**
 * A jobtasks HTTP server in this process, on a free loopback port, built the way the CLI builds one:
 * a TaskService over the given adapters, a sealer with a secret, and optional bearer tokens.
 */

export interface InProcessServerOptions {
  adapters: Array<{ name: string; adapter: AnyJobAdapter }>;
  /** Default: a fresh random secret per server. Pass the same one to two servers to make replicas. */
  secret?: string;
  /** `"alice:token...,bob:token..."`; unset means no authentication (principal "local"). */
  tokens?: string;
  /** Passed to the TaskService (retry budget, cache, clock). */
  service?: Partial<Omit<TaskServiceOptions, "adapters" | "sealer" | "logger">>;
  /** How often task subscriptions re-read their tasks. Default: the server's. */
  subscriptionIntervalMs?: number;
  /** Authentication beyond `tokens`: the scopes of static tokens, or OAuth. */
  http?: Pick<HttpServerOptions, "tokenScopes" | "oauth" | "port">;
  /** Default: a silent one. */
  logger?: Logger;
}

export interface InProcessServer {
  url: string;
  secret: string;
  service: TaskService;
  http: RunningHttpServer;
  close(): Promise<void>;
}

export function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

export async function startInProcessServer(options: InProcessServerOptions): Promise<InProcessServer> {
  const secret = options.secret ?? randomSecret();
  const logger = options.logger ?? createSilentLogger();
  const service = new TaskService({
    // Protocol-rule tests move jobs between two reads; a cache would make them wait.
    snapshotCacheMs: 0,
    immediateRetries: 0,
    immediateRetryDelayMs: 1,
    ...options.service,
    adapters: options.adapters,
    sealer: new TaskIdSealer({ secret, secretSource: "JOBTASKS_SECRET" }),
    logger,
  });
  const server = await startHttpServer({
    service,
    logger,
    name: "jobtasks-e2e",
    version: "0.0.0",
    host: "127.0.0.1",
    port: 0,
    ...(options.tokens ? { tokens: BearerTokens.parse(options.tokens) } : {}),
    ...(options.subscriptionIntervalMs !== undefined ? { subscriptionIntervalMs: options.subscriptionIntervalMs } : {}),
    ...options.http,
  });
  return {
    url: server.url,
    secret,
    service,
    http: server,
    close: async () => {
      await server.close();
      await service.close();
    },
  };
}

/** Closes everything registered, in reverse order; for afterEach. */
export class Cleanup {
  readonly #closers: Array<() => Promise<unknown>> = [];

  add<T extends { close(): Promise<unknown> }>(resource: T): T {
    this.#closers.push(() => resource.close());
    return resource;
  }

  defer(closer: () => Promise<unknown>): void {
    this.#closers.push(closer);
  }

  async run(): Promise<void> {
    const closers = this.#closers.splice(0).reverse();
    for (const closer of closers) await closer().catch(() => undefined);
  }
}
