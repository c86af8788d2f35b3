export { awsBatch, batchRetentionMs } from "./aws-batch-adapter.js";
export { adapterDefinition } from "./adapter-definition.js";
export {
  awsBatchOptionsSchema,
  type AwsBatchConfig,
  type AwsBatchOptions,
  type GenericSubmitOptions,
  type JobTemplateOptions,
  type LogTailOptions,
  type ResolvedAwsBatchOptions,
  type TemplateParameterOptions,
  type WatchToolOptions,
} from "./aws-batch-options.js";
export type { BatchJobRef } from "./batch-job-ref.js";
export { batchJobResultSchema, type BatchJobResult } from "./batch-job-result.js";
export { buildJobSnapshot } from "./build-job-snapshot.js";
export { cancelReasonPrefix, mapAwsBatchStatus } from "./map-aws-batch-status.js";
export { correlationTagKey } from "./submit-batch-job.js";
