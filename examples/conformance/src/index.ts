export {
  adapterDefinition,
  conformanceAdapterOptionsSchema,
  type ConformanceAdapterConfig,
} from "./conformance-adapter-definition.js";
export { conformanceAdapter, type ConformanceAdapterOptions } from "./conformance-adapter.js";
export { fixtureTools } from "./fixture-tools.js";
export type { FixtureTool } from "./fixture-tool.js";
