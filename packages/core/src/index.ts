export type { JsonPrimitive, JsonValue, JsonObject } from "./json.js";
export * from "./mcp-shapes.js";
export type * from "./adapter-contract.js";
export * from "./errors.js";
export * from "./task-id.js";
export * from "./task-shape.js";
export type * from "./adapter-definition.js";
