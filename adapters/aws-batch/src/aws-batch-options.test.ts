import { AdapterConfigError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { adapterDefinition } from "./adapter-definition.js";
import { awsBatch } from "./aws-batch-adapter.js";
import type { AwsBatchOptions } from "./aws-batch-options.js";
import { testBatchClient } from "./test-support/aws-test-clients.js";

const template = {
  tool: "render_frames",
  description: "Render frames",
  jobQueue: "render-queue",
  jobDefinition: "blender-render:3",
};

function configErrorOf(options: AwsBatchOptions): AdapterConfigError {
  try {
    awsBatch({ batchClient: testBatchClient(1), ...options });
  } catch (error) {
    if (error instanceof AdapterConfigError) return error;
    throw error;
  }
  throw new Error("expected an AdapterConfigError");
}

describe("options validation when the adapter is built", () => {
  it("fills documented defaults", () => {
    const adapter = awsBatch({ batchClient: testBatchClient(1) });
    expect(adapter.kind).toBe("aws-batch");
    expect(adapter.pollIntervalMs).toBe(10_000);
    expect(adapter.retentionMs).toBe(7 * 24 * 60 * 60 * 1000);
    expect(adapter.tools.map((tool) => tool.name)).toEqual(["watch_job"]);
  });

  it.each([
    [{ region: "Europe" }, "region", /AWS Region.*AWS_REGION/],
    [{ credentials: { accessKeyId: "", secretAccessKey: "x" } }, "credentials.accessKeyId", /AWS_ACCESS_KEY_ID/],
    [{ templates: [{ ...template, tool: "render frames!" }] }, "templates[0].tool", /tool name/],
    [{ templates: [{ ...template, jobQueue: "" }] }, "templates[0].jobQueue", /empty/],
    [{ templates: [{ ...template, array: { maxSize: 20_000 } }] }, "templates[0].array.maxSize", /10000/],
    [{ templates: [{ ...template, timeoutSeconds: 30 }] }, "templates[0].timeoutSeconds", /60/],
    [
      { templates: [{ ...template, allowedEnvironment: ["AWS_BATCH_JOB_ID"] }] },
      "templates[0].allowedEnvironment[0]",
      /reserved/,
    ],
    [
      { templates: [{ ...template, parameters: { scene: { pattern: "(" } } }] },
      "templates[0].parameters.scene.pattern",
      /regular expression/,
    ],
    [
      { templates: [{ ...template, parameters: { q: { enum: ["a"], default: "b" } } }] },
      "templates[0].parameters.q.default",
      /enum/,
    ],
    [{ templates: [template, template] }, "templates[1].tool", /already used by templates\[0\]\.tool/],
    [{ templates: [{ ...template, tool: "watch_job" }] }, "watch.tool", /already used/],
    [
      { genericSubmit: { allowedQueues: [], allowedDefinitions: ["d"] } },
      "genericSubmit.allowedQueues",
      /at least one queue/,
    ],
    [{ submitsPerSecond: 80 }, "submitsPerSecond", /50/],
    [{ cancelStrategy: "kill" as never }, "cancelStrategy", /auto|terminate/],
    [{ templates: [{ ...template, unknownOption: true } as never] }, "templates[0]", /unknownOption|Unrecognized/i],
  ] as [AwsBatchOptions, string, RegExp][])("rejects %j naming %s", (options, option, message) => {
    const error = configErrorOf(options);
    expect(error.option).toBe(option);
    expect(error.message).toMatch(message);
  });

  it("never puts an option's value into the error (it may be a credential)", () => {
    const error = configErrorOf({ credentials: { accessKeyId: "AKIASECRETVALUE123", secretAccessKey: 42 as never } });
    expect(error.option).toBe("credentials.secretAccessKey");
    expect(error.message).not.toContain("AKIASECRETVALUE123");
  });

  it("exposes the same schema to the jobtasks command, and builds from a parsed config block", async () => {
    expect(adapterDefinition.kind).toBe("aws-batch");
    const parsed = adapterDefinition.optionsSchema.safeParse({
      region: "eu-west-1",
      templates: [template],
      watch: false,
    });
    if (!parsed.success) throw parsed.error;
    const adapter = adapterDefinition.create(parsed.data, {});
    expect(adapter.tools.map((tool: { name: string }) => tool.name)).toEqual(["render_frames"]);
    await adapter.close?.();
    const bad = adapterDefinition.optionsSchema.safeParse({ templates: [{ ...template, retryAttempts: 11 }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["templates", 0, "retryAttempts"]);
  });
});

describe("tool input schemas", () => {
  const adapter = awsBatch({
    batchClient: testBatchClient(1),
    templates: [
      {
        ...template,
        parameters: {
          scene: { description: "Scene file", pattern: "[a-z]+\\.blend" },
          quality: { enum: ["draft", "final"], default: "draft" },
        },
        allowedEnvironment: ["FRAME_STEP"],
        array: { maxSize: 100 },
        resources: { maxVcpus: 4 },
      },
      { ...template, tool: "fixed_job" },
    ],
  });
  const schemaOf = (name: string) => adapter.tools.find((tool) => tool.name === name)?.inputSchema;

  it.each([
    [{ parameters: { scene: "intro.blend" } }, true],
    [
      {
        parameters: { scene: "intro.blend", quality: "final" },
        arraySize: 100,
        vcpus: 4,
        environment: { FRAME_STEP: "2" },
      },
      true,
    ],
    [{}, false],
    [{ parameters: { scene: "../etc/passwd" } }, false],
    [{ parameters: { scene: "intro.blend", quality: "ultra" } }, false],
    [{ parameters: { scene: "intro.blend", extra: "x" } }, false],
    [{ parameters: { scene: "intro.blend" }, command: ["sh", "-c", "rm -rf /"] }, false],
    [{ parameters: { scene: "intro.blend" }, environment: { PATH: "/tmp" } }, false],
    [{ parameters: { scene: "intro.blend" }, arraySize: 101 }, false],
    [{ parameters: { scene: "intro.blend" }, arraySize: 1 }, false],
    [{ parameters: { scene: "intro.blend" }, vcpus: 8 }, false],
    [{ parameters: { scene: "intro.blend" }, memoryMiB: 1024 }, false],
  ])("a template accepts only what it allows: %j → %s", (input, valid) => {
    expect(schemaOf("render_frames")?.safeParse(input).success).toBe(valid);
  });

  it("a template without parameters or overrides accepts only an empty object", () => {
    expect(schemaOf("fixed_job")?.safeParse({}).success).toBe(true);
    expect(schemaOf("fixed_job")?.safeParse({ parameters: {} }).success).toBe(false);
  });

  it("watch_job accepts Batch job ids, array children included, and nothing else", () => {
    const watch = schemaOf("watch_job");
    expect(watch?.safeParse({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f" }).success).toBe(true);
    expect(watch?.safeParse({ jobId: "8f1c2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f:17" }).success).toBe(true);
    expect(watch?.safeParse({ jobId: "arn:aws:batch:us-east-1:123456789012:job/x" }).success).toBe(false);
    expect(watch?.safeParse({ jobId: "" }).success).toBe(false);
  });
});
