// The adapter contract (types only), by version; a later version sits beside v1/.
export type {
  AdapterContextV1,
  AdapterDefinitionV1,
  AdapterLoggerV1,
  AnyJobAdapterV1,
  DeliveryEventsV1,
  DeliveryVerificationV1,
  EventDeliveryV1,
  JobAdapterV1,
  JobEventsV1,
  JobEventV1,
  JobSnapshotV1,
  JobToolV1,
  RespondOutcomeV1,
  StartedJobV1,
} from "./v1/index.js";
// The same types under the names adapters used before the contract was versioned.
export type {
  AdapterContext,
  AdapterDefinition,
  AdapterLogger,
  AnyJobAdapter,
  JobSnapshot,
  JobTool,
  RespondOutcome,
  StartedJob,
} from "./current-contract-names.js";
// The MCP wire shapes the contract speaks in.
export { isTerminalStatus, terminalTaskStatuses } from "./mcp-shapes.js";
export type {
  CallToolResult,
  ContentBlock,
  ElicitationFormRequest,
  ElicitationResponse,
  InputRequest,
  JsonRpcErrorObject,
  ListRootsRequest,
  ListRootsResponse,
  SamplingRequest,
  SamplingResponse,
  StartInputRequest,
  StartInputResponse,
  TaskStatus,
} from "./mcp-shapes.js";
export type { JsonObject, JsonPrimitive, JsonValue } from "./json.js";
// The contract's errors, and the helpers adapters build them with.
export {
  AdapterConfigError,
  AnswersPartlySettledError,
  ConfigError,
  InvalidToolInputError,
  JobNotFoundError,
  JobtasksError,
  OutcomeUnknownError,
  UpstreamError,
  isRetryableHttpStatus,
  parseRetryAfter,
} from "./errors.js";
export type { UpstreamErrorOptions } from "./errors.js";
export { errorCodesOf, requestNeverSent } from "./network-errors.js";
// Which delivered answers settled their question: the rule the server's answer ledger and the testkit share.
export { settledAnswerKeys } from "./settled-answer-keys.js";
// Secret redaction: the wrapper the server calls every adapter through, and the redactor it is built on.
export { withSecretRedaction } from "./with-secret-redaction.js";
export { createSecretRedactor } from "./secret-redactor.js";
export type { SecretRedactor } from "./secret-redactor.js";
export { configErrorFromIssues, describeConfigIssues, optionNameOf } from "./config-issues.js";
export type { ConfigErrorOptions, ConfigIssue } from "./config-issues.js";
// The zod every package builds its schemas with, so that a process holds one copy of it (src/zod.ts).
export { z } from "./zod.js";
// Upstream text (status messages, results, log tails) made safe to print on a terminal.
export { terminalSafe, terminalSafeJson } from "./terminal-safe-text.js";
