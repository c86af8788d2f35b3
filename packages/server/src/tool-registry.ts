import { ConfigError, withSecretRedaction, type AnyJobAdapter, type JobTool, z } from "@jobtasks/core";
import { toPortableJsonSchema, withLimitsInDescriptions } from "./portable-json-schema.js";

/** One adapter instance as the server was configured with it. */
export interface AdapterInstance {
  /** The instance name from the config; sealed into task ids, so renaming it orphans existing tasks. */
  name: string;
  adapter: AnyJobAdapter;
}

export interface RegisteredTool {
  /** The name of the adapter instance that offers the tool. */
  instance: string;
  adapter: AnyJobAdapter;
  tool: JobTool;
  /** The tools/list entry, computed once. */
  descriptor: ToolDescriptor;
}

export interface ToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** MCP tool names: letters, digits, underscore, hyphen and dot, 1 to 128 characters. */
const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/;

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #adapters = new Map<string, AnyJobAdapter>();

  /** `observe` wraps each adapter once more, outside the redactor (the service's readiness and telemetry). */
  constructor(
    adapters: readonly AdapterInstance[],
    observe: (adapter: AnyJobAdapter, instance: string) => AnyJobAdapter = (adapter) => adapter,
  ) {
    for (const [index, configured] of adapters.entries()) {
      if (this.#adapters.has(configured.name)) {
        throw new ConfigError(
          `adapters[${index}].name`,
          `"${configured.name}" is used by two adapter instances; names must be unique`,
        );
      }
      if (configured.adapter.specificationVersion !== "v1") {
        throw new ConfigError(
          `adapters[${index}]`,
          `adapter "${configured.name}" implements contract ${String(configured.adapter.specificationVersion)}, this server speaks v1`,
        );
      }
      // Every adapter is called through the redactor of its declared secrets, tools included.
      const adapter = observe(withSecretRedaction(configured.adapter), configured.name);
      this.#adapters.set(configured.name, adapter);
      for (const tool of adapter.tools) {
        if (!toolNamePattern.test(tool.name)) {
          throw new ConfigError(
            `adapters[${index}]`,
            `tool name "${tool.name}" must be 1-128 characters of letters, digits, "_", "-" or "."`,
          );
        }
        const existing = this.#tools.get(tool.name);
        if (existing) {
          throw new ConfigError(
            `adapters[${index}]`,
            `tool "${tool.name}" of adapter "${configured.name}" clashes with the same tool of adapter "${existing.instance}"; rename one of them`,
          );
        }
        this.#tools.set(tool.name, { instance: configured.name, adapter, tool, descriptor: describeTool(tool) });
      }
    }
  }

  get tools(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  tool(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  adapter(name: string): AnyJobAdapter | undefined {
    return this.#adapters.get(name);
  }

  /** Each adapter instance with its name from the config. */
  get instances(): Array<{ name: string; adapter: AnyJobAdapter }> {
    return [...this.#adapters].map(([name, adapter]) => ({ name, adapter }));
  }

  get adapters(): AnyJobAdapter[] {
    return [...this.#adapters.values()];
  }
}

/**
 * A job tool as a client without the tasks extension sees it: its answer may be a handle instead of the
 * job's result, and clients reject structuredContent that does not match a declared output schema.
 */
export function withoutOutputSchema(descriptor: ToolDescriptor): ToolDescriptor {
  const { outputSchema: _outputSchema, ...rest } = descriptor;
  return rest;
}

function describeTool(tool: JobTool): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    name: tool.name,
    description: tool.description,
    inputSchema: inputJsonSchema(tool.inputSchema),
  };
  if (tool.title !== undefined) descriptor.title = tool.title;
  if (tool.outputSchema) {
    descriptor.outputSchema = toObjectJsonSchema(
      z.toJSONSchema(tool.outputSchema, { io: "output", unrepresentable: "any" }),
    );
  }
  return descriptor;
}

/**
 * MCP wants object schemas, spelled so that clients with a narrower schema dialect take them whole (see
 * toPortableJsonSchema). zod's $schema marker is dropped, as some clients reject it, unless the tool's
 * schema names its dialect itself (`.meta({ $schema: ... })`): a JSON Schema 2020-12 tool keeps it.
 */
function toObjectJsonSchema(schema: Record<string, unknown>, keepDialect = false): Record<string, unknown> {
  const { $schema, ...rest } = toPortableJsonSchema(withoutSafeIntegerBounds(schema) as Record<string, unknown>);
  const kept = keepDialect && $schema !== undefined ? { $schema, ...rest } : rest;
  return rest.type === "object" ? kept : { type: "object", ...kept };
}

/**
 * A tool's input schema as tools/list sends it, job tools and handle tools alike. "input" gives the schema
 * a client must send: fields with defaults are optional.
 */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return withLimitsInDescriptions(
    toObjectJsonSchema(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }), declaresDialect(schema)),
  );
}

function declaresDialect(schema: z.ZodType): boolean {
  return typeof z.globalRegistry.get(schema)?.["$schema"] === "string";
}

/**
 * zod writes every integer's implicit ±(2^53 − 1) range into the schema; it says nothing to an agent and
 * costs tokens in every tools/list, so those two bounds are left out (real bounds stay).
 */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "minimum" && item === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && item === Number.MAX_SAFE_INTEGER) continue;
    copy[key] = withoutSafeIntegerBounds(item);
  }
  return copy;
}
