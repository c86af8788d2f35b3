import { UpstreamError } from "@jobtasks/core";
import { createTestContext } from "@jobtasks/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FakeKubernetesApi } from "./test-support/fake-kubernetes-api.js";
import { createTestAdapter, describeWithClient } from "./test-support/kubernetes-test-adapter.js";

describeWithClient("the connection to the cluster", () => {
  let fake: FakeKubernetesApi;
  beforeEach(async () => {
    fake = await new FakeKubernetesApi().start();
  });
  afterEach(async () => {
    await fake.close();
  });

  const startMigration = (adapter: ReturnType<typeof createTestAdapter>) =>
    adapter.tools.find((tool) => tool.name === "migrate_database")!.doStart({ target: "7" }, createTestContext());

  it("says which verb on what in which namespace a 403 refused, and that it is no outage", async () => {
    fake.forbidden.add("batch create jobs");
    const adapter = createTestAdapter(fake);
    const error = await startMigration(adapter).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toMatch(
      /^the kubeconfig user cannot create jobs in namespace batch \(403 Forbidden\): grant "create" on jobs in a Role/,
    );
    expect((error as UpstreamError).isRetryable).toBe(false);
    expect((error as UpstreamError).isThrottled).toBe(false);
    expect(fake.count((request) => request.method === "POST")).toBe(1);
    await adapter.close?.();
  });

  it("fails a status read the service account may not make, without retrying it as an outage", async () => {
    fake.forbidden.add("batch list jobs");
    fake.forbidden.add("batch get jobs");
    const adapter = createTestAdapter(fake);
    const error = await adapter
      .doGetStatus({ namespace: "batch", name: "nightly-report-29100", uid: "u-1" }, createTestContext())
      .catch((caught: unknown) => caught);
    expect((error as UpstreamError).message).toMatch(/cannot get jobs in namespace batch \(403 Forbidden\)/);
    expect((error as UpstreamError).isRetryable).toBe(false);
    await adapter.close?.();
  });

  it("says the credentials were refused on a 401, naming the verb and namespace, never the token", async () => {
    const adapter = createTestAdapter(fake, {
      connection: { mode: "kubeconfig", kubeconfig: fake.kubeconfigPath, context: "stranger" },
    });
    const error = await startMigration(adapter).catch((caught: unknown) => caught);
    expect((error as UpstreamError).message).toMatch(
      /^the Kubernetes API refused the credentials of the kubeconfig user \(401 Unauthorized\) to create jobs in namespace batch/,
    );
    expect((error as UpstreamError).isRetryable).toBe(false);
    expect(JSON.stringify(error) + String((error as Error).stack)).not.toContain("another-token-the-fake-refuses");
    await adapter.close?.();
  });

  it("names the context option when the kubeconfig has no such context, and the kubeconfig when it cannot be read", async () => {
    const noContext = createTestAdapter(fake, {
      connection: { mode: "kubeconfig", kubeconfig: fake.kubeconfigPath, context: "prod" },
    });
    await expect(startMigration(noContext)).rejects.toThrow('connection.context: the kubeconfig has no context "prod"');
    const noFile = createTestAdapter(fake, {
      connection: { mode: "kubeconfig", kubeconfig: "/nonexistent/kubeconfig" },
    });
    await expect(startMigration(noFile)).rejects.toThrow(
      /cannot read the kubeconfig \(connection\.kubeconfig, KUBECONFIG or ~\/\.kube\/config\): ENOENT/,
    );
    expect(fake.requests).toEqual([]);
  });

  it("reads KUBECONFIG from the environment it is given, and declares the token as a secret", async () => {
    const { kubernetes } = await import("./kubernetes-adapter.js");
    const adapter = kubernetes(
      { allowedNamespaces: ["batch"], connection: { mode: "kubeconfig" } },
      { KUBECONFIG: fake.kubeconfigPath },
    );
    await expect(
      adapter.doGetStatus({ namespace: "batch", name: "gone", uid: "u-2" }, createTestContext()),
    ).rejects.toThrow(/no longer exists/);
    const secrets = typeof adapter.secrets === "function" ? adapter.secrets() : adapter.secrets;
    expect(secrets).toContain("fake-kubernetes-token-MUST-NOT-LEAK-0123");
    await adapter.close?.();
  });

  it("refuses a task of a namespace the config no longer allows, without asking the API", async () => {
    const adapter = createTestAdapter(fake, { allowedNamespaces: ["ml"], tools: [] });
    const ref = { namespace: "batch", name: "nightly-report-29100", uid: "u-3" };
    await expect(adapter.doGetStatus(ref, createTestContext())).rejects.toThrow(
      "namespace batch is no longer in allowedNamespaces",
    );
    await expect(adapter.doCancel!(ref, createTestContext())).rejects.toThrow("no longer in allowedNamespaces");
    expect(fake.requests).toEqual([]);
    await adapter.close?.();
  });

  it("keeps a connection failure retryable, without the server's address", async () => {
    const adapter = createTestAdapter(fake, { requestTimeoutMs: 2000 });
    await fake.close();
    const error = await startMigration(adapter).catch((caught: unknown) => caught);
    expect((error as Error).message).not.toContain("127.0.0.1");
    await adapter.close?.();
    fake = await new FakeKubernetesApi().start();
  });
});
