import { withSecretRedaction } from "@jobtasks/core";
import { describe } from "vitest";
import { kubernetes, type KubernetesOptions } from "../kubernetes-adapter.js";
import { minimumNodeVersion, nodeRunsKubernetesClient } from "../node-version.js";
import type { FakeKubernetesApi } from "./fake-kubernetes-api.js";

/**
 * @kubernetes/client-node 2.x fails at import on Node 20 (its undici 8): the tests that reach the client
 * run on Node 22 and 24 and are skipped on older Node, with the reason in their name.
 */
export const clientRuns = nodeRunsKubernetesClient();
export const skipReason = clientRuns
  ? ""
  : ` (skipped: @kubernetes/client-node 2.x needs Node >= ${minimumNodeVersion}, this is Node ${process.versions.node})`;

/** A describe that runs only where the client loads, named with the reason when it does not. */
export function describeWithClient(name: string, body: () => void): void {
  describe.skipIf(!clientRuns)(`${name}${skipReason}`, body);
}

export const namespace = "ml";
export const allowedNamespaces = ["ml", "batch", "flaky"];

/** The job templates the tests use: a training job (asks first) and a migration. */
export const testTools: NonNullable<KubernetesOptions["tools"]> = [
  {
    name: "train_model",
    description: "Train a model on a dataset",
    namespace: "ml",
    approval: { question: "Start training on 4 GPUs?" },
    inputs: {
      dataset: { type: "string", pattern: "^[a-z0-9-]+$", maxLength: 63, description: "The dataset's name" },
      epochs: { type: "integer", minimum: 1, maximum: 100, default: 3 },
      workers: { type: "integer", minimum: 1, maximum: 8, default: 2 },
    },
    template: {
      image: "registry.example.com/ml/train:1.4",
      command: ["python", "train.py"],
      args: ["--dataset", "{{dataset}}", "--epochs={{epochs}}"],
      env: { DATASET: "{{dataset}}", LOG_LEVEL: "info" },
      resources: { limits: { "nvidia.com/gpu": "4" } },
      serviceAccountName: "trainer",
      backoffLimit: 2,
      parallelism: "{{workers}}",
      completions: "{{workers}}",
      completionMode: "Indexed",
      ttlSecondsAfterFinished: 3600,
      labels: { team: "ml" },
    },
  },
  {
    name: "migrate_database",
    description: "Run the schema migrations up to a version",
    namespace: "batch",
    inputs: { target: { type: "string", pattern: "^[0-9]{1,6}$", description: "The schema version to migrate to" } },
    template: {
      image: "registry.example.com/shop/migrate:7",
      args: ["up", "--to", "{{target}}"],
      backoffLimit: 0,
      activeDeadlineSeconds: 600,
    },
  },
];

/** The adapter on the fake's kubeconfig, as the server calls it (through the core's redaction). */
export function createTestAdapter(fake: FakeKubernetesApi, options: Partial<KubernetesOptions> = {}) {
  const adapter = kubernetes(
    {
      connection: { mode: "kubeconfig", kubeconfig: fake.kubeconfigPath },
      allowedNamespaces,
      tools: testTools,
      podReadIntervalMs: 50,
      watch: { backoffMs: 50, maxBackoffMs: 500, timeoutSeconds: 60 },
      ...options,
    },
    {},
  );
  return Object.assign(withSecretRedaction(adapter), { raw: adapter });
}

/** Poll until `check` passes (an assertion that stops throwing), for what the watch delivers. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
