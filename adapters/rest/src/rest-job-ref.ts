import { z } from "@jobtasks/core";
import { maxJobReferenceLength } from "./submit-job.js";
import { toolNamePattern } from "./tool-options-schema.js";

/**
 * The adapter's `refSchema`: the server checks every ref it opens from a task id against it, so
 * the methods receive one of this shape or none. Both shapes ever sealed fit: `{ id, createdAt }`, and
 * `{ id, createdAt, tool }` since tools may declare an outputSchema. A tool named here that the config no
 * longer has still opens (its result is then not held to a schema). Strict and bounded like the submit
 * (maxJobReferenceLength), so that another adapter's ref or a forged one never reaches the upstream.
 */
export const restJobRefSchema = z.strictObject({
  /** The job id, or its status URL (only the path and query when on baseUrl's origin). */
  id: z.string().min(1).max(maxJobReferenceLength),
  /** When the job was started, epoch ms: the polling back-off and the 404 grace window start there. */
  createdAt: z.int().nonnegative(),
  /** The tool that started the job, when it declares an outputSchema (results are checked against it). */
  tool: z.string().regex(toolNamePattern).exactOptional(),
});

/** The job ref sealed into the task id. */
export type RestJobRef = z.infer<typeof restJobRefSchema>;
