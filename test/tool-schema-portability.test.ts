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
