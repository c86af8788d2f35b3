export { runAdapterConformance } from "./run-adapter-conformance.js";
export {
  createTestContext,
  createRecordingLogger,
  type LogEntry,
  type RecordingTestContext,
} from "./create-test-context.js";
export { findSnapshotProblems, findInputRequestProblems } from "./snapshot-problems.js";
export { findAdapterShapeProblems } from "./adapter-shape-problems.js";
export { findSecretLeaks } from "./secret-leaks.js";
export type {
  ConformanceGroup,
  ConformanceHarness,
  ConformanceInputResponse,
  ConformanceTestTools,
} from "./conformance-types.js";
