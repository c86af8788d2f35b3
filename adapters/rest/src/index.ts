export { restAdapter, type RestAdapterRuntime } from "./rest-adapter.js";
export type { RestJobRef } from "./rest-job-ref.js";
export { adapterDefinition } from "./adapter-definition.js";
export {
  restOptionsSchema,
  resolvedRestOptionsSchema,
  type RestOptions,
  type ResolvedRestOptions,
  type AuthOptions,
} from "./rest-options.js";
export type { ToolOptions, TypedField } from "./tool-options-schema.js";
export type { RequestOptions } from "./request-options-schema.js";
export type {
  CancelOptions,
  InputRequiredOptions,
  ProgressOptions,
  ReferenceOptions,
  ResultOptions,
  StatusOptions,
} from "./job-options-schema.js";
export { presets, type PresetName } from "./presets.js";
export { mapStatus, type StatusReading } from "./map-rest-status.js";
export { pollIntervalFor, type PollingPolicy } from "./poll-interval.js";
