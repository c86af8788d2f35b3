export { awsBatch, batchRetentionMs } from "./aws-batch-adapter.js";
export { adapterDefinition } from "./adapter-definition.js";
export type {
  AwsBatchOptions,
  GenericSubmitOptions,
  JobTemplateOptions,
  LogTailOptions,
  TemplateParameterOptions,
  WatchToolOptions,
} from "./aws-batch-options.js";
export { awsBatchOptionsSchema, type ResolvedAwsBatchOptions } from "./aws-batch-options-schema.js";
export type { BatchJobRef } from "./batch-job-ref.js";
export { batchJobResultSchema, type BatchJobResult } from "./batch-job-result.js";
export { cancelReasonPrefix, mapBatchJobStatus } from "./map-aws-batch-status.js";
export { correlationTagKey } from "./submit-batch-job.js";
