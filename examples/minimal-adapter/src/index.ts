export { adapterDefinition } from "./adapter-definition.js";
export { memoryJobs, type MemoryJobRef } from "./memory-jobs-adapter.js";
export { memoryJobsOptionsSchema, type MemoryJobsOptions } from "./memory-jobs-options.js";
export { MemoryJobTable } from "./memory-jobs-api.js";
