import { z } from "@jobtasks/core";

/**
 * The part of the demo API's job record the adapter reads. Only the fields it uses, and statuses as open
 * strings: a newer API may add values, and the mapping decides what an unknown one means.
 */
export const demoJobResponseSchema = z.object({
  id: z.string(),
  status: z.string(),
  name: z.string(),
  totalSteps: z.number().int(),
  currentStep: z.number().int(),
  steps: z.array(z.object({ number: z.number().int(), name: z.string(), status: z.string() })),
  approval: z
    .object({ id: z.string(), message: z.string(), state: z.string(), comment: z.string().optional() })
    .nullable()
    .optional(),
  logs: z.array(z.string()).default([]),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional(),
});

export type DemoJobResponse = z.output<typeof demoJobResponseSchema>;
