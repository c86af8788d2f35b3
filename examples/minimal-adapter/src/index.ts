export { adapterDefinition } from "./adapter-definition.js";
export { memoryJobs } from "./memory-jobs-adapter.js";
export type { MemoryJobRef } from "./memory-job-ref.js";
export { memoryJobsOptionsSchema, type MemoryJobsOptions } from "./memory-jobs-options.js";
export { MemoryJobTable } from "./memory-jobs-api.js";
