import { isPlainObject } from "@jobtasks/core/adapter-utils";

/**
 * Checks of what an adapter returns, written as "list the problems" functions so that a failing
 * conformance test names every fault at once, and so that the checks themselves can be tested.
 */

const taskStatuses = new Set(["working", "input_required", "completed", "failed", "cancelled"]);
/** Form elicitations only carry flat primitive fields (and multi-select enums as arrays). */
const formFieldTypes = new Set(["string", "number", "integer", "boolean", "array"]);

/** Problems with one `inputRequests` entry: it must be an `elicitation/create` form request. */
export function findInputRequestProblems(key: string, request: unknown): string[] {
  const where = `inputRequests[${JSON.stringify(key)}]`;
  if (!isPlainObject(request)) return [`${where} is not an object`];
  const problems: string[] = [];
  if (request.method !== "elicitation/create") problems.push(`${where}.method is not "elicitation/create"`);
  const params = request.params;
  if (!isPlainObject(params)) return [...problems, `${where}.params is not an object`];
  if (params.mode !== "form") problems.push(`${where}.params.mode is not "form"`);
  if (typeof params.message !== "string" || params.message.trim() === "") {
    problems.push(`${where}.params.message is not a non-empty string`);
  }
  const schema = params.requestedSchema;
  if (!isPlainObject(schema)) return [...problems, `${where}.params.requestedSchema is not an object`];
  if (schema.type !== "object") problems.push(`${where}.params.requestedSchema.type is not "object"`);
  if (!isPlainObject(schema.properties)) {
    problems.push(`${where}.params.requestedSchema.properties is not an object`);
  } else {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!isPlainObject(property) || typeof property.type !== "string" || !formFieldTypes.has(property.type)) {
        problems.push(`${where}.params.requestedSchema.properties.${name} is not a primitive form field`);
      }
    }
  }
  if (schema.required !== undefined) {
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    if (
      !Array.isArray(schema.required) ||
      schema.required.some((name) => typeof name !== "string" || !(name in properties))
    ) {
      problems.push(`${where}.params.requestedSchema.required must list property names`);
    }
  }
  return problems;
}

function findResultProblems(result: unknown): string[] {
  if (!isPlainObject(result)) return ["a completed snapshot has no result object"];
  const problems: string[] = [];
  if (!Array.isArray(result.content)) {
    problems.push("result.content is not an array");
  } else {
    result.content.forEach((block: unknown, index) => {
      if (!isPlainObject(block) || typeof block.type !== "string")
        problems.push(`result.content[${index}] has no string type`);
      else if (block.type === "text" && typeof block.text !== "string")
        problems.push(`result.content[${index}].text is not a string`);
    });
  }
  if (result.isError !== undefined && typeof result.isError !== "boolean")
    problems.push("result.isError is not a boolean");
  if (result.structuredContent !== undefined && !isPlainObject(result.structuredContent)) {
    problems.push("result.structuredContent is not an object");
  }
  return problems;
}

/** Problems with a JobSnapshot: its fields, and the payload its status requires. */
export function findSnapshotProblems(snapshot: unknown): string[] {
  if (!isPlainObject(snapshot)) return ["the snapshot is not an object"];
  const problems: string[] = [];
  if (typeof snapshot.status !== "string" || !taskStatuses.has(snapshot.status)) {
    problems.push(`status ${JSON.stringify(snapshot.status)} is not a task status`);
  }
  if (typeof snapshot.rawStatus !== "string") problems.push("rawStatus is not a string");
  if (snapshot.message !== undefined && typeof snapshot.message !== "string") problems.push("message is not a string");
  if (
    snapshot.updatedAt !== undefined &&
    (typeof snapshot.updatedAt !== "string" || Number.isNaN(Date.parse(snapshot.updatedAt)))
  ) {
    problems.push("updatedAt is not an ISO 8601 time");
  }
  if (
    snapshot.pollIntervalMs !== undefined &&
    !(typeof snapshot.pollIntervalMs === "number" && snapshot.pollIntervalMs >= 0)
  ) {
    problems.push("pollIntervalMs is not a non-negative number");
  }
  try {
    JSON.stringify(snapshot);
  } catch (error) {
    problems.push(`the snapshot is not JSON-serialisable (${(error as Error).message})`);
  }

  switch (snapshot.status) {
    case "completed":
      problems.push(...findResultProblems(snapshot.result));
      break;
    case "failed": {
      const error = snapshot.error;
      if (
        !isPlainObject(error) ||
        !Number.isInteger(error.code) ||
        typeof error.message !== "string" ||
        error.message === ""
      ) {
        problems.push("a failed snapshot has no error with an integer code and a message");
      }
      break;
    }
    case "input_required": {
      const requests = snapshot.inputRequests;
      if (!isPlainObject(requests) || Object.keys(requests).length === 0) {
        problems.push("an input_required snapshot has no inputRequests");
      } else {
        for (const [key, request] of Object.entries(requests)) problems.push(...findInputRequestProblems(key, request));
      }
      break;
    }
  }
  return problems;
}
