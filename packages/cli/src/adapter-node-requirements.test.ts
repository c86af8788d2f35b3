import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeRequirementProblem } from "./adapter-registry.js";
import { loadConfig } from "./load-config.js";

describe("kinds that need a newer Node", () => {
  it("refuses kind kubernetes below Node 22.19, saying why, and accepts it from there", () => {
    for (const version of ["20.20.2", "22.18.0", "21.7.3"])
      expect(nodeRequirementProblem("kubernetes", version)).toBe(
        `kind kubernetes needs Node 22.19.0 or newer (its client, @kubernetes/client-node 2.x, does not load on older Node); this is Node ${version}: run jobtasks with Node 22 or 24`,
      );
    for (const version of ["22.19.0", "22.23.5", "24.22.3", "26.0.0"])
      expect(nodeRequirementProblem("kubernetes", version)).toBeUndefined();
    expect(nodeRequirementProblem("gitlab-ci", "20.20.2")).toBeUndefined();
    expect(nodeRequirementProblem("toString", "20.20.2")).toBeUndefined();
  });

  it("names the kind's field in the config when this Node is too old, before loading the package", async () => {
    const directory = await mkdtemp(join(tmpdir(), "node-requirement-"));
    const file = join(directory, "jobtasks.config.yaml");
    await writeFile(
      file,
      "adapters:\n  - name: cluster\n    kind: kubernetes\n    options:\n      allowedNamespaces: [ml]\n",
    );
    const loading = loadConfig(file, {});
    const tooOld = nodeRequirementProblem("kubernetes");
    if (tooOld) await expect(loading).rejects.toThrow(`adapters[0].kind: ${tooOld}`);
    else expect((await loading).adapters.map(({ adapter }) => adapter.kind)).toEqual(["kubernetes"]);
    await rm(directory, { recursive: true, force: true });
  });
});
