import { describe, expect, it } from "vitest";
import { buildJobManifest, toolInputSchema } from "./build-job-manifest.js";
import { jobToolOptionsSchema } from "./job-template-options.js";
import { testTools } from "./test-support/kubernetes-test-adapter.js";

const training = jobToolOptionsSchema.parse(testTools[0]);
const migration = jobToolOptionsSchema.parse(testTools[1]);
const context = { toolName: "train_model", instanceLabel: "ml-server", startId: "0123456789abcdef" };

describe("buildJobManifest", () => {
  it("fills the marked args, env values and counts with the validated input, and nothing else", () => {
    const input = toolInputSchema(training.inputs).parse({ dataset: "imagenet-mini", workers: 4 });
    const job = buildJobManifest(training, input, context);
    const container = job.spec!.template.spec!.containers[0]!;
    expect(container.args).toEqual(["--dataset", "imagenet-mini", "--epochs=3"]);
    expect(container.env).toEqual([
      { name: "DATASET", value: "imagenet-mini" },
      { name: "LOG_LEVEL", value: "info" },
    ]);
    expect(container.command).toEqual(["python", "train.py"]);
    expect(container.image).toBe("registry.example.com/ml/train:1.4");
    expect(container.resources).toEqual({ limits: { "nvidia.com/gpu": "4" } });
    expect(job.spec).toMatchObject({
      parallelism: 4,
      completions: 4,
      completionMode: "Indexed",
      backoffLimit: 2,
      ttlSecondsAfterFinished: 3600,
      suspend: true,
    });
    expect(job.spec!.template.spec).toMatchObject({ serviceAccountName: "trainer", restartPolicy: "Never" });
  });

  it("labels the Job and its pods with the tool and the server instance, and gives it a generateName", () => {
    const job = buildJobManifest(migration, { target: "42" }, { ...context, toolName: "k8s_migrate_database" });
    expect(job.metadata).toMatchObject({
      generateName: "migrate-database-",
      namespace: "batch",
      labels: {
        "jobtasks.io/instance": "ml-server",
        "jobtasks.io/tool": "k8s_migrate_database",
        "jobtasks.io/start": "0123456789abcdef",
      },
    });
    expect(job.metadata).not.toHaveProperty("name");
    expect(job.spec!.template.metadata!.labels).toEqual({
      "jobtasks.io/instance": "ml-server",
      "jobtasks.io/tool": "k8s_migrate_database",
    });
    expect(job.spec).not.toHaveProperty("suspend");
    expect(job.spec!.activeDeadlineSeconds).toBe(600);
  });

  it("refuses input the schema does not allow: a pattern, a range, an unknown field", () => {
    const schema = toolInputSchema(training.inputs);
    expect(schema.safeParse({ dataset: "../../etc" }).success).toBe(false);
    expect(schema.safeParse({ dataset: "ok", workers: 9 }).success).toBe(false);
    expect(schema.safeParse({ dataset: "ok", image: "evil:latest" }).success).toBe(false);
    expect(schema.safeParse({ dataset: "ok" }).data).toEqual({ dataset: "ok", epochs: 3, workers: 2 });
  });

  it("passes a value into one argument, never splitting it or reading it as YAML", () => {
    const input = toolInputSchema({ note: { type: "string" } }).parse({ note: "a b; rm -rf / {{x}}\nkind: Pod" });
    const tool = jobToolOptionsSchema.parse({
      ...testTools[1],
      inputs: { note: { type: "string" } },
      template: { image: "busybox:1", args: ["echo", "{{note}}"] },
    });
    expect(buildJobManifest(tool, input, context).spec!.template.spec!.containers[0]!.args).toEqual([
      "echo",
      "a b; rm -rf / {{x}}\nkind: Pod",
    ]);
  });

  it("escapes $ in a value, so that Kubernetes never expands it into another variable of the container", () => {
    // Kubernetes expands $(NAME) in args and env values from the container's env and the namespace's
    // service variables; $$ is its escape for a literal $. A caller's "$(DATABASE_URL)" must stay that text.
    const tool = jobToolOptionsSchema.parse({
      ...testTools[1],
      inputs: { target: { type: "string" } },
      template: {
        image: "busybox:1",
        args: ["--target={{target}}"],
        env: { DATABASE_URL: "postgres://migrator:hunter2@db:5432/app", TARGET: "{{target}}" },
      },
    });
    const job = buildJobManifest(tool, { target: "$(DATABASE_URL) $$ $(KUBERNETES_SERVICE_HOST)" }, context);
    const container = job.spec!.template.spec!.containers[0]!;
    expect(container.args).toEqual(["--target=$$(DATABASE_URL) $$$$ $$(KUBERNETES_SERVICE_HOST)"]);
    expect(container.env).toEqual([
      { name: "DATABASE_URL", value: "postgres://migrator:hunter2@db:5432/app" },
      { name: "TARGET", value: "$$(DATABASE_URL) $$$$ $$(KUBERNETES_SERVICE_HOST)" },
    ]);
  });
});
