import { UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { describe, expect, it } from "vitest";
import { kubernetes } from "./kubernetes-adapter.js";
import { nodeRunsKubernetesClient, nodeTooOldMessage } from "./node-version.js";

describe("the Node the client needs", () => {
  it("runs from Node 22.19 on", () => {
    for (const version of ["20.20.2", "21.7.3", "22.18.0"]) expect(nodeRunsKubernetesClient(version)).toBe(false);
    for (const version of ["22.19.0", "22.23.5", "24.22.3", "25.0.0"])
      expect(nodeRunsKubernetesClient(version)).toBe(true);
  });

  // The mirror of the tests that need the client: this one runs where they are skipped.
  it.skipIf(nodeRunsKubernetesClient())(
    "says why it cannot start a Job on this Node, without loading the client",
    async () => {
      const adapter = kubernetes(
        { allowedNamespaces: ["batch"], connection: { mode: "kubeconfig", kubeconfig: "/nonexistent" } },
        {},
      );
      const watchJob = adapter.tools.find((tool) => tool.name === "watch_job")!;
      const error = await watchJob
        .doStart({ namespace: "batch", name: "nightly" }, createTestContext())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).message).toBe(nodeTooOldMessage());
      expect((error as UpstreamError).isRetryable).toBe(false);
    },
  );
});
