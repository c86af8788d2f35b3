import { AdapterConfigError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { adapterDefinition } from "./adapter-definition.js";
import { gitlabCi } from "./gitlab-ci-adapter.js";

function configError(build: () => unknown): AdapterConfigError {
  try {
    build();
  } catch (error) {
    if (error instanceof AdapterConfigError) return error;
    throw error;
  }
  throw new Error("expected an AdapterConfigError");
}

describe("gitlab-ci options", () => {
  it("stops the start naming the token when neither the option nor GITLAB_TOKEN is set", () => {
    const error = configError(() => gitlabCi({ projects: ["acme/shop"] }, {}));
    expect(error.option).toBe("token");
    expect(error.message).toContain("GITLAB_TOKEN");
  });

  it("takes the token from GITLAB_TOKEN when the options have none", () => {
    expect(gitlabCi({ projects: ["acme/shop"] }, { GITLAB_TOKEN: "glpat-fromTheEnvironment01" }).kind).toBe(
      "gitlab-ci",
    );
  });

  it("names the option at fault", () => {
    expect(configError(() => gitlabCi({ token: "glpat-x0123456789", projects: [] }, {})).option).toBe("projects");
    expect(configError(() => gitlabCi({ token: "glpat-x0123456789", projects: ["acme"] }, {})).option).toBe(
      "projects[0]",
    );
    expect(
      configError(() =>
        gitlabCi({ token: "glpat-x0123456789", projects: ["acme/shop"], baseUrl: "ftp://gitlab.example.com" }, {}),
      ).option,
    ).toBe("baseUrl");
    expect(
      configError(() =>
        gitlabCi({ token: "glpat-x0123456789", projects: ["acme/shop"], logs: { maxReadMs: 60_000 } }, {}),
      ).option,
    ).toBe("logs.maxReadMs");
  });

  it("refuses options it does not know, so that a typo is not silently ignored", () => {
    const parsed = adapterDefinition.optionsSchema.safeParse({ projects: ["acme/shop"], projetcs: ["acme/shop"] });
    expect(parsed.success).toBe(false);
  });

  it("builds from a config block as the jobtasks command passes it (parsed, defaults applied)", () => {
    const options = adapterDefinition.optionsSchema.parse({ projects: ["acme/shop", "278964"], toolPrefix: "gl_" });
    const adapter = adapterDefinition.create(options, { GITLAB_TOKEN: "glpat-fromTheEnvironment01" });
    expect(adapter.tools.map((tool) => tool.name)).toEqual([
      "gl_create_pipeline",
      "gl_watch_pipeline",
      "gl_retry_pipeline",
    ]);
    expect(adapter.pollIntervalMs).toBe(10_000);
    expect(adapter.retentionMs).toBeNull();
  });
});
