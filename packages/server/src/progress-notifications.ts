import type { JobSnapshot } from "@jobtasks/core";

/** Something that wants to see each observation of a job while a synchronous call waits for it. */
export type SnapshotObserver = (snapshot: JobSnapshot) => Promise<void>;

export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/**
 * notifications/progress for a synchronous call whose client asked for them (a progressToken in the
 * request's _meta), from the progress the adapter reports. MCP wants the value to increase with every
 * notification, so a repeated or smaller one is not sent. Tasks have no such notifications (their status
 * message says how far they are); only the synchronous path uses this.
 */
export function progressObserver(
  progressToken: string | number,
  notify: (notification: ProgressNotification) => Promise<void>,
): SnapshotObserver {
  let last: number | undefined;
  return async (snapshot) => {
    const reported = snapshot.progress;
    if (!reported || !Number.isFinite(reported.progress) || (last !== undefined && reported.progress <= last)) return;
    last = reported.progress;
    const params: ProgressNotification["params"] = { progressToken, progress: reported.progress };
    if (reported.total !== undefined) params.total = reported.total;
    if (snapshot.message !== undefined) params.message = snapshot.message;
    // A client that went away misses a notification, nothing more: the call's own answer tells the rest.
    await notify({ method: "notifications/progress", params }).catch(() => undefined);
  };
}
