import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import { runTaskSubscription } from "./task-subscription.js";
import { stripTaskResultContent } from "./strip-task-result-content.js";
import { routeRequest } from "./request-dispatch.js";
import type { TaskService } from "./task-service.js";
import type { Logger } from "./logger.js";

export interface TaskListenTransportOptions {
  service: TaskService;
  logger: Logger;
  principal: string;
  intervalMs?: number;
}

/**
 * A transport in front of another (stdio) that serves task subscriptions itself and passes every other
 * message through, since the SDK's listen handling does not know task filters. A client ends a
 * subscription with notifications/cancelled naming the listen request, as for any request.
 */
export class TaskListenTransport implements Transport {
  readonly #inner: Transport;
  readonly #options: TaskListenTransportOptions;
  readonly #subscriptions = new Map<string | number, AbortController>();
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  constructor(inner: Transport, options: TaskListenTransportOptions) {
    this.#inner = inner;
    this.#options = options;
    inner.onclose = () => {
      for (const controller of this.#subscriptions.values()) controller.abort();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (this.#intercept(message)) return;
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  // The inner transport owns protocol-version bookkeeping; these forward to it.
  get setProtocolVersion(): ((version: string) => void) | undefined {
    return this.#inner.setProtocolVersion?.bind(this.#inner);
  }

  get setSupportedProtocolVersions(): ((versions: string[]) => void) | undefined {
    return this.#inner.setSupportedProtocolVersions?.bind(this.#inner);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(stripTaskResultContent(message), options);
  }

  close(): Promise<void> {
    for (const controller of this.#subscriptions.values()) controller.abort();
    return this.#inner.close();
  }

  #intercept(message: JSONRPCMessage): boolean {
    // route.scope goes unread: stdio has no authentication, and its one caller, the local principal, holds
    // every scope.
    const route = routeRequest(message);
    if (route.kind === "cancelled") {
      const controller = this.#subscriptions.get(route.requestId);
      controller?.abort();
      return controller !== undefined;
    }
    if (route.kind === "refuse") {
      this.#inner.send(route.answer as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error));
      return true;
    }
    if (route.kind !== "listen") return false;
    const { listen } = route;
    const controller = new AbortController();
    this.#subscriptions.set(listen.id, controller);
    void runTaskSubscription({
      service: this.#options.service,
      logger: this.#options.logger,
      principal: this.#options.principal,
      request: listen,
      signal: controller.signal,
      ...(this.#options.intervalMs !== undefined ? { intervalMs: this.#options.intervalMs } : {}),
      send: (outgoing) => {
        this.#inner
          .send(outgoing as unknown as JSONRPCMessage)
          .catch((error: unknown) => this.onerror?.(error as Error));
      },
    }).finally(() => this.#subscriptions.delete(listen.id));
    return true;
  }
}
