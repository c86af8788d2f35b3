import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "jobtasks";
import { createSilentLogger, TaskIdSealer, TaskService, ToolRegistry } from "@jobtasks/server";
import { presets } from "@jobtasks/rest";
import { findPortabilityProblems } from "./support/schema-portability.js";
import { buildApprovalRequest } from "../examples/demo/src/demo-adapter/demo-approval-request.js";
import { describePendingDeployments } from "../adapters/github-actions/src/pending-deployment-requests.js";

/**
 * Every built-in tool's tools/list schemas, input and output, as the example configs produce them (they
 * cover each adapter kind and each REST preset), held to the portability rules MCP Inspector 2.x checks:
 * 0 findings. And every approval form's boolean has a default, so a client can send a rejection as shown.
 */

const examples = [
  "examples/demo/jobtasks.config.yaml",
  "examples/demo/jobtasks.demo-adapter.config.yaml",
  "examples/github-ci/jobtasks.config.yaml",
  "examples/aws-batch/jobtasks.config.yaml",
  "examples/rest-jobs/azure-document-models.config.yaml",
  "examples/rest-jobs/google-cloud-run-jobs.config.yaml",
  "examples/rest-jobs/render-farm.config.yaml",
].map((path) => fileURLToPath(new URL(`../${path}`, import.meta.url)));

const environment: Record<string, string> = {
  GITHUB_TOKEN: "ghp_tokenForSchemaTestsOnly0123456789abcd",
  AWS_REGION: "eu-west-1",
  AZURE_DOCUMENT_ENDPOINT: "https://docs.example.test",
  AZURE_DOCUMENT_KEY: "azure-key-for-tests",
  GOOGLE_ACCESS_TOKEN: "google-token-for-tests",
  GOOGLE_PROJECT: "demo-project",
  GOOGLE_REGION: "us-central1",
  RENDER_FARM_URL: "https://render.example.test",
  RENDER_FARM_TOKEN: "render-token-for-tests",
  RENDER_FARM_CALLBACK_SECRET: "render-callback-secret-for-tests",
};

describe("tool schema portability", () => {
  it("finds each kind of problem it looks for (the rules can fail)", () => {
    const rules = findPortabilityProblems({
      type: "object",
      properties: {
        maybe: { type: ["string", "null"] },
        anything: { description: "no validation keyword" },
        bare: true,
        remote: { $ref: "https://example.test/schema.json" },
      },
      additionalProperties: {},
    }).map((finding) => `${finding.rule} ${finding.path}`);
    expect(rules.sort()).toEqual([
      "boolean-schema properties.bare",
      "remote-ref properties.remote",
      "type-union properties.maybe",
      "untyped-schema additionalProperties",
      "untyped-schema properties.anything",
    ]);
    expect(
      findPortabilityProblems({ type: "object", additionalProperties: true, properties: { x: { not: {} } } }),
    ).toEqual([]);
  });

  it("every built-in tool's input and output schemas have 0 findings", async () => {
    const findings: string[] = [];
    const kinds = new Set<string>();
    let schemas = 0;
    for (const file of examples) {
      const config = await loadConfig(file, environment);
      for (const { adapter } of config.adapters) kinds.add(adapter.kind);
      for (const { descriptor } of new ToolRegistry(config.adapters).tools) {
        for (const [kind, schema] of [
          ["inputSchema", descriptor.inputSchema],
          ["outputSchema", descriptor.outputSchema],
        ] as const) {
          if (schema === undefined) continue;
          schemas += 1;
          for (const finding of findPortabilityProblems(schema))
            findings.push(`${descriptor.name} ${kind}.${finding.path}: ${finding.rule}`);
        }
      }
    }
    expect([...kinds].sort()).toEqual(["aws-batch", "demo", "github-actions", "rest"]);
    expect(schemas).toBeGreaterThanOrEqual(20);
    expect(findings).toEqual([]);
  });

  it("task_status, task_answer and task_cancel (listed to clients without the extension) have 0 findings", async () => {
    const config = await loadConfig(examples[0]!, environment);
    const service = new TaskService({
      adapters: config.adapters,
      sealer: new TaskIdSealer({ secret: "p".repeat(40) }),
      logger: createSilentLogger(),
    });
    const handleTools = service.listTools(false).filter((tool) => tool.name.startsWith("task_"));
    expect(handleTools.map((tool) => tool.name)).toEqual(["task_status", "task_answer", "task_cancel"]);
    const findings = handleTools.flatMap((tool) =>
      (["inputSchema", "outputSchema"] as const).flatMap((kind) =>
        findPortabilityProblems(tool[kind]).map((finding) => `${tool.name} ${kind}.${finding.path}: ${finding.rule}`),
      ),
    );
    expect(findings).toEqual([]);
  });
});

/**
 * Codex drops `default`, `minimum` and `maximum` from input schemas: each limit and default must also be
 * in the argument's description, or the model never learns them. Every value a limit keyword holds, per
 * schema node (properties, items, branches), must appear in that node's description.
 */
const limitKeywords = [
  "default",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
];

function limitsMissingFromDescriptions(schema: unknown, path = ""): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const missing: string[] = [];
  const description = typeof node["description"] === "string" ? node["description"] : "";
  for (const keyword of limitKeywords) {
    if (!(keyword in node) || path === "") continue;
    const value = node[keyword];
    const spelt = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value);
    if (!description.includes(spelt)) missing.push(`${path}: ${keyword} ${spelt} not in "${description}"`);
  }
  for (const [name, child] of Object.entries((node["properties"] as Record<string, unknown>) ?? {}))
    missing.push(...limitsMissingFromDescriptions(child, `${path}.${name}`));
  if (node["items"]) missing.push(...limitsMissingFromDescriptions(node["items"], `${path}[]`));
  for (const keyword of ["anyOf", "oneOf", "allOf"])
    for (const [index, branch] of ((node[keyword] as unknown[]) ?? []).entries())
      missing.push(...limitsMissingFromDescriptions(branch, `${path}.${keyword}[${index}]`));
  return missing;
}

describe("limits and defaults in descriptions", () => {
  it("the check finds a bound or default that a description leaves out (the rule can fail)", () => {
    expect(
      limitsMissingFromDescriptions({
        type: "object",
        properties: {
          steps: { type: "integer", minimum: 1, maximum: 10, description: "How many steps, 1 to 10" },
          wait: { type: "number", default: 40 },
        },
      }),
    ).toEqual(['.wait: default 40 not in ""']);
  });

  it("every built-in tool's input schema, and the handle tools', spells each argument's limits and default in its description", async () => {
    const missing: string[] = [];
    let limited = 0;
    for (const file of examples) {
      const config = await loadConfig(file, environment);
      const service = new TaskService({
        adapters: config.adapters,
        sealer: new TaskIdSealer({ secret: "p".repeat(40) }),
        logger: createSilentLogger(),
      });
      for (const tool of service.listTools(false)) {
        const text = JSON.stringify(tool.inputSchema);
        if (limitKeywords.some((keyword) => text.includes(`"${keyword}"`))) limited += 1;
        missing.push(...limitsMissingFromDescriptions(tool.inputSchema).map((entry) => `${tool.name}${entry}`));
      }
    }
    expect(limited).toBeGreaterThanOrEqual(5);
    expect(missing).toEqual([]);
  });
});

describe("approval forms", () => {
  const booleansWithoutDefault = (requestedSchema: { properties: Record<string, Record<string, unknown>> }) =>
    Object.entries(requestedSchema.properties)
      .filter(([, property]) => property["type"] === "boolean" && typeof property["default"] !== "boolean")
      .map(([name]) => name);

  it("give every boolean a default, so a rejection needs no toggling (demo, REST demo-api, GitHub)", () => {
    const demo = buildApprovalRequest(
      { id: "job-1", name: "pipeline", status: "waiting_for_approval", currentStep: 1, totalSteps: 3 } as never,
      { id: "approval-1", message: "deploy?" } as never,
    );
    const restForm = (
      presets["demo-api"] as { inputRequired: { schema: { properties: Record<string, Record<string, unknown>> } } }
    ).inputRequired.schema;
    const deployments = JSON.parse(
      readFileSync(
        new URL("../adapters/github-actions/src/__fixtures__/pending-deployments.json", import.meta.url),
        "utf8",
      ),
    ) as Array<Record<string, unknown>>;
    const waiting = describePendingDeployments(
      { owner: "octo-org", repo: "octo-app", runId: 42, attempt: 1 },
      "deploy",
      deployments.map((deployment) => ({ ...deployment, current_user_can_approve: true })) as never,
      new Map(),
    );
    const githubForms = Object.values(waiting.inputRequests);
    expect(githubForms.length).toBeGreaterThan(0);
    for (const form of [demo, ...githubForms]) {
      expect(booleansWithoutDefault(form.params.requestedSchema as never)).toEqual([]);
      expect(
        (form.params.requestedSchema.properties as Record<string, Record<string, unknown>>)["approve"]?.["default"],
      ).toBe(false);
    }
    expect(booleansWithoutDefault(restForm)).toEqual([]);
    expect(restForm.properties["approve"]?.["default"]).toBe(false);
  });
});
