import type { TaskStatus } from "@jobtasks/core";

/** The upstream's state to a task status; pure. A job that ran and was rejected is completed with isError. */
export function mapMemoryJobsStatus(rawStatus: string): { status: TaskStatus; isError?: boolean } {
  switch (rawStatus) {
    case "succeeded":
      return { status: "completed", isError: false };
    case "rejected":
      return { status: "completed", isError: true };
    case "cancelled":
      return { status: "cancelled" };
    case "waiting_for_approval":
      return { status: "input_required" };
    default:
      // "running", and any state the upstream adds later: never end a task on a word we do not know.
      return { status: "working" };
  }
}
