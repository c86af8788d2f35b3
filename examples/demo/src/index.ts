export { startDemoApi, type DemoApiOptions, type RunningDemoApi } from "./demo-api/demo-api-server.js";
export type {
  DemoApproval,
  DemoApprovalState,
  DemoJobRecord,
  DemoJobStatus,
  DemoStep,
  DemoStepStatus,
} from "./demo-api/demo-job-record.js";
export { demoAdapter, type DemoAdapterOptions } from "./demo-adapter/demo-adapter.js";
export {
  demoAdapterOptionsSchema,
  type DemoAdapterConfig,
  type ResolvedDemoAdapterConfig,
} from "./demo-adapter/demo-options.js";
export { adapterDefinition } from "./demo-adapter/adapter-definition.js";
export { mapDemoStatus } from "./demo-adapter/map-demo-status.js";
export { demoPipelineInputSchema, type DemoPipelineInput } from "./demo-adapter/demo-pipeline-tool.js";
export type { DemoJobRef } from "./demo-adapter/demo-job-ref.js";
export { demoPipelineOutputSchema, type DemoPipelineOutput } from "./demo-adapter/demo-pipeline-result.js";
export type { DemoJobResponse } from "./demo-adapter/demo-job-response.js";
