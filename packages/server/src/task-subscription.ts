import type { GrantedScopes } from "./access-policy.js";
import { setTimeout as sleep } from "node:timers/promises";
import { SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/server";
import { isTerminalStatus } from "@jobtasks/core";
import { type DetailedTask } from "./task-shape.js";
import { tasksExtensionRequired } from "./protocol-error.js";
import { declaresTasksExtension } from "./declares-tasks-extension.js";
import type { TaskService } from "./task-service.js";
import type { Logger } from "./logger.js";

/** A JSON-RPC message as this module writes it. */
export type OutgoingMessage = Record<string, unknown> & { jsonrpc: "2.0" };

/** The most task ids one subscription follows; more are left out of the acknowledgement. */
export const maxTaskIdsPerSubscription = 100;

export interface TaskListenRequest {
  id: string | number;
  taskIds: unknown[];
  declaresTasks: boolean;
}

/**
 * Recognise, in a `subscriptions/listen` request (routeRequest hands this every one), a request for task
 * notifications. The SDK's own listen handling knows only list-changed and resource filters, so these are
 * served here, in front of it.
 */
export function parseTaskListenRequest(message: unknown): TaskListenRequest | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const request = message as { id?: unknown; params?: Record<string, unknown> };
  if (typeof request.id !== "string" && typeof request.id !== "number") return undefined;
  const notifications = request.params?.["notifications"] as { taskIds?: unknown } | undefined;
  if (!notifications || !Array.isArray(notifications.taskIds)) return undefined;
  return {
    id: request.id,
    taskIds: notifications.taskIds,
    declaresTasks: declaresTasksExtension(request.params?.["_meta"]),
  };
}

export interface TaskSubscriptionOptions {
  service: TaskService;
  logger: Logger;
  principal: string;
  /** The caller's scopes (absent: every scope): only tasks whose tool's scopes it holds are followed. */
  scopes?: GrantedScopes;
  request: TaskListenRequest;
  send(message: OutgoingMessage): void;
  /** Aborted when the client goes away; the subscription then ends without a final result. */
  signal: AbortSignal;
  /**
   * The shortest time between two reads of a followed task. Default 1000 ms; a task whose pollIntervalMs
   * is longer is read at that pace. Reads share the service's snapshot cache.
   */
  intervalMs?: number;
}

/**
 * Serve one task subscription: acknowledge the ids this caller may follow, then push `notifications/tasks`
 * (the full task, as tasks/get answers it) each time a task changes, and end once every task is terminal.
 * Its state is this function's local variables: a restart ends the stream and the client listens again.
 */
export async function runTaskSubscription(options: TaskSubscriptionOptions): Promise<void> {
  const subscribers = options.service.telemetry.instruments?.pushSubscribers;
  subscribers?.add(1);
  try {
    await followTasks(options);
  } finally {
    subscribers?.add(-1);
  }
}

async function followTasks(options: TaskSubscriptionOptions): Promise<void> {
  const { service, request, principal, signal } = options;
  const caller = options.scopes === undefined ? { principal } : { principal, scopes: options.scopes };
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: request.id };
  if (!request.declaresTasks) {
    const error = tasksExtensionRequired("subscriptions/listen for task notifications");
    options.send({
      jsonrpc: "2.0",
      id: request.id,
      error: { code: error.code, message: error.message, data: error.data },
    });
    return;
  }
  const agreed = [...new Set(request.taskIds.filter((taskId): taskId is string => typeof taskId === "string"))]
    .filter((taskId) => service.missingTaskScopes(taskId, caller)?.length === 0)
    .slice(0, maxTaskIdsPerSubscription);
  options.send({
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: { taskIds: agreed }, _meta: stamp },
  });

  const lastSent = new Map<string, string>();
  // When each task is read next: no sooner than the subscription's interval, nor than the task's own
  // pollIntervalMs (the adapter's view of how often its upstream may be asked).
  const nextReadAt = new Map(agreed.map((taskId) => [taskId, 0]));
  const intervalMs = options.intervalMs ?? 1000;
  const readAndNotify = async (taskId: string): Promise<void> => {
    let task: DetailedTask;
    try {
      task = await service.getTask(taskId, { ...caller, signal });
    } catch (error) {
      if (signal.aborted) return;
      // Expired or no longer openable: nothing more will be said about it.
      options.logger.debug({ err: error }, "task subscription dropped a task");
      nextReadAt.delete(taskId);
      return;
    }
    const { lastUpdatedAt: _changesEveryRead, ...comparable } = task;
    const fingerprint = JSON.stringify(comparable);
    if (lastSent.get(taskId) !== fingerprint) {
      lastSent.set(taskId, fingerprint);
      options.send({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...task, _meta: stamp } });
    }
    if (isTerminalStatus(task.status)) nextReadAt.delete(taskId);
    else if (changedWhileRead.delete(taskId)) nextReadAt.set(taskId, 0);
    else nextReadAt.set(taskId, Date.now() + Math.max(intervalMs, task.pollIntervalMs ?? 0));
  };
  // A task whose job reports a change (an upstream event) is read again at once, not at its next turn; a
  // change during its read (whose answer may predate it) gets it one more read.
  const changedWhileRead = new Set<string>();
  const untilChanged = (taskId: string, waitSignal: AbortSignal): Promise<void> =>
    service.whenChanged(taskId, principal, waitSignal).then(() => {
      if (nextReadAt.get(taskId) === Number.POSITIVE_INFINITY) changedWhileRead.add(taskId);
      else if (nextReadAt.has(taskId)) nextReadAt.set(taskId, 0);
    });
  // Each task is read on its own schedule: one slow upstream never holds back the other tasks' updates.
  const reading = new Set<Promise<void>>();
  while (nextReadAt.size > 0 && !signal.aborted) {
    const now = Date.now();
    for (const [taskId, readAt] of nextReadAt) {
      if (readAt > now) continue;
      nextReadAt.set(taskId, Number.POSITIVE_INFINITY);
      const read: Promise<void> = readAndNotify(taskId).finally(() => reading.delete(read));
      reading.add(read);
    }
    if (nextReadAt.size === 0) break;
    const nextDue = Math.min(...nextReadAt.values());
    const waitMs = Number.isFinite(nextDue) ? Math.max(10, nextDue - Date.now()) : 60_000;
    // Wake at the next due read, as soon as a read in flight finishes (it may end the subscription), or
    // when a task's job reports a change; the timer and registrations of a wait cut short are cleared.
    const stopWaiting = new AbortController();
    const waitSignal = AbortSignal.any([signal, stopWaiting.signal]);
    try {
      await Promise.race([
        sleep(waitMs, undefined, { signal: waitSignal }),
        ...reading,
        ...[...nextReadAt.keys()].map((taskId) => untilChanged(taskId, waitSignal)),
      ]);
    } catch {
      // The wait was cut short: by the client going away (checked below) or by nothing else.
    } finally {
      stopWaiting.abort();
    }
    if (signal.aborted) return;
  }
  if (!signal.aborted)
    options.send({ jsonrpc: "2.0", id: request.id, result: { resultType: "complete", _meta: stamp } });
}
