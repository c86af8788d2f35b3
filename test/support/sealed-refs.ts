import { expect } from "vitest";
import type { JsonValue } from "@jobtasks/core";
import { TaskIdSealer } from "@jobtasks/server";
import { rawError } from "./raw-rpc.js";

/**
 * Task ids around refs a test chooses: the shapes an older release sealed, and shapes no release of the
 * adapter ever sealed (another adapter's, or forged by someone who once held the secret). The server
 * seals only what its adapters hand it, so these are sealed here with the server's own secret.
 */

/** A task id for `ref`, as the server holding `secret` seals it for an unauthenticated caller. */
export function sealRef(secret: string, reference: { instance: string; tool: string; ref: JsonValue }): string {
  const sealer = new TaskIdSealer({ secret });
  return sealer.seal({ ...reference, createdAt: Date.now() }, "local");
}

/** Refs of every adapter kind in this repository, and values no adapter seals. */
export const refsOfEveryKind: Record<string, JsonValue> = {
  "github-actions": { owner: "octo-org", repo: "octo-app", runId: 9182799001, attempt: 1 },
  "aws-batch": { jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" },
  "aws-batch submitted": { jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f", submittedAt: 1_764_547_200_000 },
  rest: { id: "j-1", createdAt: 1_764_547_200_000 },
  "gitlab-ci": { project: "group/app", pipelineId: 1001 },
  "a bare string": "j-1",
  "a number": 42,
  null: null,
  "an array": [{ jobId: "j-1" }],
};

/**
 * Expect `taskId` to be answered exactly as an unknown task id by tasks/get, tasks/update and tasks/cancel:
 * -32602 Task not found, with nothing that tells the two apart.
 */
export async function expectAnsweredAsUnknown(url: string, taskId: string, label: string): Promise<void> {
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const extra = method === "tasks/update" ? { inputResponses: { "any-key": { action: "accept", content: {} } } } : {};
    const unknown = await rawError(url, method, { taskId: "jt1.unknown.id", ...extra });
    const answer = await rawError(url, method, { taskId, ...extra });
    expect(answer, `${method} of ${label}`).toEqual(unknown);
    expect(answer, `${method} of ${label}`).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Task not found/),
    });
  }
}
