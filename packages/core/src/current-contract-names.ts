import type { JsonValue } from "./json.js";
import type { AdapterDefinitionV1 } from "./v1/adapter-definition-v1.js";
import type {
  AdapterContextV1,
  AdapterLoggerV1,
  AnyJobAdapterV1,
  JobSnapshotV1,
  JobToolV1,
  RespondOutcomeV1,
  StartedJobV1,
} from "./v1/job-adapter-v1.js";

/**
 * The contract's names without a version, as adapters and users wrote them before the contract was
 * versioned. Each is the version this core serves (v1); a later version gets its own folder beside v1/,
 * and these names move to it only in a major release.
 */
export type AdapterContext = AdapterContextV1;
export type AdapterLogger = AdapterLoggerV1;
export type JobSnapshot = JobSnapshotV1;
export type RespondOutcome = RespondOutcomeV1;
export type StartedJob<Ref extends JsonValue> = StartedJobV1<Ref>;
export type JobTool<Ref extends JsonValue = JsonValue, Input = any> = JobToolV1<Ref, Input>;
export type AnyJobAdapter = AnyJobAdapterV1;
export type AdapterDefinition<Options = any> = AdapterDefinitionV1<Options>;
