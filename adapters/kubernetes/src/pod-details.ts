import type { CoreV1Event, V1Pod } from "@kubernetes/client-node";

/**
 * What a Job's pods say that the Job does not: why it is still pending (the scheduler's message, an image
 * that cannot be pulled), and how its containers ended (exit codes, OOMKilled, termination messages).
 */

/** Waiting reasons that block a pod, with what the agent can do about them in mind. */
const blockingWaits = new Set([
  "ImagePullBackOff",
  "ErrImagePull",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CreateContainerConfigError",
  "CreateContainerError",
  "CrashLoopBackOff",
  "RunContainerError",
]);

const cut = (text: string, length = 300) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** Newest pod first: the one whose state the agent most needs. */
export function newestFirst(pods: readonly V1Pod[]): V1Pod[] {
  const time = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  return [...pods].sort((a, b) => time(b) - time(a));
}

/** Why the Job cannot run yet, from its pods (or, with none, the Job's warning events), if anything blocks it. */
export function pendingReason(pods: readonly V1Pod[], events: readonly CoreV1Event[]): string | undefined {
  for (const pod of newestFirst(pods)) {
    const unscheduled = pod.status?.conditions?.find(
      (condition) => condition.type === "PodScheduled" && condition.status === "False",
    );
    if (unscheduled)
      return cut(
        `FailedScheduling: ${unscheduled.message ?? unscheduled.reason ?? "the scheduler found no node for the pod"}`,
      );
    for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
      const waiting = status.state?.waiting;
      if (waiting?.reason && blockingWaits.has(waiting.reason))
        return cut(`${waiting.reason}: image ${status.image}${waiting.message ? `: ${waiting.message}` : ""}`);
    }
  }
  if (pods.length > 0) return undefined;
  const warning = [...events]
    .filter((event) => event.type === "Warning")
    .sort((a, b) => eventTime(b) - eventTime(a))[0];
  return warning ? cut(`${warning.reason ?? "Warning"}: ${warning.message ?? ""}`) : undefined;
}

function eventTime(event: CoreV1Event): number {
  return new Date(event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp ?? 0).getTime();
}

export interface ContainerEnd {
  pod: string;
  container: string;
  exitCode: number;
  reason?: string;
  message?: string;
}

/** How every terminated container of the pods ended, newest pod first. */
export function containerEnds(pods: readonly V1Pod[]): ContainerEnd[] {
  const ends: ContainerEnd[] = [];
  for (const pod of newestFirst(pods))
    for (const status of pod.status?.containerStatuses ?? []) {
      const terminated = status.state?.terminated ?? status.lastState?.terminated;
      if (!terminated) continue;
      ends.push({
        pod: pod.metadata?.name ?? "",
        container: status.name,
        exitCode: terminated.exitCode,
        ...(terminated.reason ? { reason: terminated.reason } : {}),
        ...(terminated.message ? { message: cut(terminated.message.trim(), 1000) } : {}),
      });
    }
  return ends;
}

/** The pods whose logs a result shows: the failed ones of a failed Job, the last one of a complete Job. */
export function podsToTail(pods: readonly V1Pod[], failed: boolean): V1Pod[] {
  const ordered = newestFirst(pods);
  if (!failed) return ordered.filter((pod) => pod.status?.phase === "Succeeded").slice(0, 1);
  const failedPods = ordered.filter((pod) => pod.status?.phase === "Failed");
  return failedPods.length > 0 ? failedPods : ordered.slice(0, 1);
}
