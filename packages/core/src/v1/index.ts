export type {
  AdapterContextV1,
  AdapterLoggerV1,
  AnyJobAdapterV1,
  JobAdapterV1,
  JobSnapshotV1,
  JobToolV1,
  RespondOutcomeV1,
  StartedJobV1,
} from "./job-adapter-v1.js";
export type { AdapterDefinitionV1 } from "./adapter-definition-v1.js";
export type {
  DeliveryEventsV1,
  DeliveryVerificationV1,
  EventDeliveryV1,
  JobEventsV1,
  JobEventV1,
} from "./job-events-v1.js";
