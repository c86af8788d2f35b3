export { startDemoApi, type DemoApiOptions, type RunningDemoApi } from "./demo-api/demo-api-server.js";
export type {
  DemoApproval,
  DemoApprovalState,
  DemoJobRecord,
  DemoJobStatus,
  DemoStep,
  DemoStepStatus,
} from "./demo-api/demo-job-record.js";
