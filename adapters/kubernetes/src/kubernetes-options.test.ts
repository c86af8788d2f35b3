import { AdapterConfigError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { kubernetes } from "./kubernetes-adapter.js";
import { testTools } from "./test-support/kubernetes-test-adapter.js";

const migration = testTools[1]!;
const problemOf = (options: Record<string, unknown>) => {
  try {
    kubernetes({ allowedNamespaces: ["batch"], ...options } as never, {});
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterConfigError);
    return (error as AdapterConfigError).message;
  }
  throw new Error("the options were accepted");
};
const withTemplate = (change: Record<string, unknown>, inputs: Record<string, unknown> = migration.inputs ?? {}) => ({
  tools: [{ ...migration, inputs, template: { ...migration.template, ...change } }],
});

describe("kubernetes options", () => {
  it("builds without touching the cluster, and offers a tool per template plus watch_job", () => {
    const adapter = kubernetes({ allowedNamespaces: ["ml", "batch"], tools: testTools, toolPrefix: "k8s_" }, {});
    expect(adapter.tools.map((tool) => tool.name)).toEqual([
      "k8s_train_model",
      "k8s_migrate_database",
      "k8s_watch_job",
    ]);
  });

  it("names the option at fault", () => {
    expect(problemOf({ allowedNamespaces: [] })).toMatch(/^Invalid configuration at allowedNamespaces:/);
    expect(problemOf({ allowedNamespaces: ["Not_A_Namespace"] })).toMatch(/allowedNamespaces\[0\]/);
    expect(problemOf({ tools: [{ ...migration, namespace: "prod" }] })).toMatch(
      /tools\[0\]\.namespace: "prod" is not in allowedNamespaces/,
    );
    expect(problemOf({ connection: { mode: "cluster" } })).toMatch(/connection\.mode/);
  });

  it("fills only args, env values and the counts: a placeholder anywhere else is refused", () => {
    expect(problemOf(withTemplate({ image: "registry.example.com/shop/migrate:{{target}}" }))).toMatch(
      /tools\[0\]\.template: \{\{…\}\} is filled only in args, env values/,
    );
    expect(problemOf(withTemplate({ serviceAccountName: "{{target}}" }))).toMatch(/is filled only in/);
    expect(problemOf(withTemplate({ labels: { team: "{{target}}" } }))).toMatch(/tools\[0\]\.template/);
  });

  it("refuses a placeholder naming no input, an input no placeholder uses, and a string filling a count", () => {
    expect(problemOf(withTemplate({ args: ["up", "--to", "{{version}}"] }))).toMatch(
      /tools\[0\]\.template\.args\[2\]: \{\{version\}\} names no input/,
    );
    expect(problemOf(withTemplate({}, { target: { type: "string" }, extra: { type: "string" } }))).toMatch(
      /tools\[0\]\.inputs\.extra: no \{\{…\}\} of the template uses it/,
    );
    expect(problemOf(withTemplate({ parallelism: "{{target}}" }))).toMatch(
      /tools\[0\]\.template\.parallelism: \{\{target\}\} fills a count: the input must be of type integer/,
    );
  });

  it("refuses a $ right before a placeholder, which would let a value become a $(NAME) Kubernetes expands", () => {
    expect(problemOf(withTemplate({ args: ["--to=${{target}}"] }))).toMatch(
      /tools\[0\]\.template\.args\[0\]: a \$ right before \{\{…\}\} would let a value become \$\(NAME\)/,
    );
    expect(problemOf(withTemplate({ env: { TARGET: "$$${{target}}" } }))).toMatch(/tools\[0\]\.template\.env\.TARGET/);
    // $$ is Kubernetes' literal $: a value after it is never read as a variable's name.
    expect(() =>
      kubernetes({ allowedNamespaces: ["batch"], ...withTemplate({ args: ["--price=$${{target}}"] }) } as never, {}),
    ).not.toThrow();
  });

  it("refuses two tools of one name, and no tool at all", () => {
    expect(problemOf({ tools: [migration, migration] })).toMatch(/tools\[1\]\.name: "migrate_database" is used twice/);
    expect(problemOf({ tools: [{ ...migration, name: "watch_job" }] })).toMatch(/is used twice/);
    expect(problemOf({ watchJob: false })).toMatch(/^Invalid configuration at tools: no tool/);
  });
});
