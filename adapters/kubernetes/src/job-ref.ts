import { z } from "@jobtasks/core";

/**
 * What a task id seals: the Job's namespace and name, and its uid. A Job deleted and created again under
 * the same name is another Job, with another uid: the task follows the one it started, never its namesake.
 */
export const jobRefSchema = z.strictObject({
  namespace: z
    .string()
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  name: z
    .string()
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/),
  uid: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9-]+$/),
});

export type JobRef = z.infer<typeof jobRefSchema>;
