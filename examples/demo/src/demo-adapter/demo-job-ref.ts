import { z } from "@jobtasks/core";

/** The demo API's job ids: letters, digits, `_` and `-`, nothing a URL path could misread. */
export const demoJobIdPattern = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The adapter's `refSchema`: what a task id seals for this adapter, the demo API's job id, which is all it
 * takes to find the job again. The server checks every ref it opens from a task id against it, so the
 * methods receive one of this shape or none. Strict, so that another adapter's ref never reaches the API.
 */
export const demoJobRefSchema = z.strictObject({ jobId: z.string().regex(demoJobIdPattern) });

export type DemoJobRef = z.infer<typeof demoJobRefSchema>;
