export { startDemoApi, type DemoApiOptions, type RunningDemoApi } from "./demo-api/demo-api-server.js";
export type {
  DemoApproval,
  DemoApprovalState,
  DemoJobRecord,
  DemoJobStatus,
  DemoStep,
  DemoStepStatus,
} from "./demo-api/demo-job-record.js";
export { demoAdapter } from "./demo-adapter/demo-adapter.js";
export type { DemoAdapterOptions } from "./demo-adapter/demo-adapter-options.js";
export {
  adapterDefinition,
  demoAdapterOptionsSchema,
  type DemoAdapterConfig,
} from "./demo-adapter/demo-adapter-definition.js";
export { mapDemoJobStatus } from "./demo-adapter/map-demo-job-status.js";
export { demoPipelineInputSchema, type DemoJobRef, type DemoPipelineInput } from "./demo-adapter/demo-pipeline-tool.js";
export { demoPipelineOutputSchema, type DemoPipelineOutput } from "./demo-adapter/demo-pipeline-result.js";
export type { DemoJobResponse } from "./demo-adapter/demo-job-response.js";
