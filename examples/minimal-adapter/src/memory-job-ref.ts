import { z } from "@jobtasks/core";

/**
 * The adapter's `refSchema`: what a task id seals for this adapter, the table's job number. The server
 * checks every ref it opens against it, so the methods receive one of this shape or none.
 */
export const memoryJobRefSchema = z.strictObject({ jobId: z.number().int().positive() });

export type MemoryJobRef = z.infer<typeof memoryJobRefSchema>;
