import type { JobSnapshot } from "@jobtasks/core";
import { approvalQuestion, buildApprovalRequest } from "./demo-approval-request.js";
import type { DemoJobResponse } from "./demo-job-response.js";
import { failedResult, rejectedResult, succeededResult } from "./demo-pipeline-result.js";

function progress(job: DemoJobResponse): string {
  const step = job.steps[job.currentStep - 1];
  return step ? `step ${job.currentStep}/${job.totalSteps}: ${step.name}` : `step ${job.currentStep}/${job.totalSteps}`;
}

/**
 * The one mapping from a demo job record to a snapshot. Pure: same record, same snapshot, which is what
 * keeps a finished task unchanged however often it is read.
 */
export function mapDemoStatus(job: DemoJobResponse): JobSnapshot {
  const base = { rawStatus: job.status, ...(job.updatedAt === undefined ? {} : { updatedAt: job.updatedAt }) };
  switch (job.status) {
    case "queued":
      return { ...base, status: "working", message: "queued" };
    case "running":
      return { ...base, status: "working", message: progress(job) };
    case "waiting_for_approval": {
      const approval = job.approval;
      // A gate without a pending approval is a passing state of the API: nothing to answer yet.
      if (!approval || approval.state !== "pending")
        return { ...base, status: "working", message: "waiting for approval" };
      return {
        ...base,
        status: "input_required",
        message: approvalQuestion(job),
        inputRequests: { [approval.id]: buildApprovalRequest(job, approval) },
        // The deploy gate is a person's decision: only a caller with the approval scope may answer it.
        approvalKeys: [approval.id],
      };
    }
    case "succeeded":
      return { ...base, status: "completed", message: "succeeded", result: succeededResult(job) };
    case "failed":
      // The pipeline ran and failed: a tool error for the agent to read, not a protocol fault.
      return { ...base, status: "completed", message: `failed (${progress(job)})`, result: failedResult(job) };
    case "rejected": {
      const result = rejectedResult(job);
      const comment = result.structuredContent?.approvalComment;
      const message = `the deploy approval was rejected${typeof comment === "string" ? `: ${comment}` : ""}`;
      return { ...base, status: "completed", message, result };
    }
    case "cancelled":
      return { ...base, status: "cancelled", message: "cancelled" };
    default:
      // A status this adapter does not know yet: keep waiting rather than guess an ending.
      return { ...base, status: "working", message: `demo API status "${job.status}" (${progress(job)})` };
  }
}
