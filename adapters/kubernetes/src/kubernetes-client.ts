import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UpstreamError } from "@jobtasks/core";
import type { BatchV1Api, CoreV1Api, KubeConfig, Watch } from "@kubernetes/client-node";
import type { ResolvedKubernetesConfig } from "./kubernetes-options.js";
import { nodeRunsKubernetesClient, nodeTooOldMessage } from "./node-version.js";

/**
 * The transport under kubernetes-api.ts: @kubernetes/client-node, loaded at the first call that needs the
 * cluster (never at import, so a server without a Kubernetes instance, and the config's JSON Schema, load
 * none of it; and on Node 20, where the client's undici 8 fails at import, the package still loads and
 * says why it cannot run), with the kubeconfig or the in-cluster service account the options name.
 */

export type KubernetesClientModule = typeof import("@kubernetes/client-node");

let loadingModule: Promise<KubernetesClientModule> | undefined;

/** The client module, once per process; a split bundle hands a lazily imported package over as `default`. */
export function loadKubernetesClientModule(): Promise<KubernetesClientModule> {
  if (!nodeRunsKubernetesClient())
    return Promise.reject(new UpstreamError(nodeTooOldMessage(), { isRetryable: false }));
  loadingModule ??= import("@kubernetes/client-node").then(
    (module) => ("KubeConfig" in module ? module : (module as { default: KubernetesClientModule }).default),
    (error: unknown) => {
      loadingModule = undefined;
      throw new UpstreamError("could not load @kubernetes/client-node", { isRetryable: false, cause: error });
    },
  );
  return loadingModule;
}

export interface KubernetesClient {
  batch: BatchV1Api;
  core: CoreV1Api;
  watch: Watch;
  module: KubernetesClientModule;
  /** The credentials the kubeconfig or the service account holds now (tokens, passwords, client keys). */
  secrets(): string[];
}

export type Environment = Readonly<Record<string, string | undefined>>;

const serviceAccountTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/** Build the client the options describe. Errors name the option at fault, never a path's contents. */
export async function createKubernetesClient(
  connection: ResolvedKubernetesConfig["connection"],
  environment: Environment,
): Promise<KubernetesClient> {
  const module = await loadKubernetesClientModule();
  const config = new module.KubeConfig();
  const inCluster =
    connection.mode === "in-cluster" || (connection.mode === "auto" && Boolean(environment["KUBERNETES_SERVICE_HOST"]));
  if (inCluster) {
    config.loadFromCluster();
  } else {
    const path = kubeconfigPath(connection, environment);
    try {
      config.loadFromFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UpstreamError(
        `cannot read the kubeconfig (connection.kubeconfig, KUBECONFIG or ~/.kube/config)${code ? `: ${code}` : ""}`,
        { isRetryable: false },
      );
    }
    if (connection.context !== undefined) {
      if (!config.getContexts().some((context) => context.name === connection.context))
        throw new UpstreamError(`connection.context: the kubeconfig has no context "${connection.context}"`, {
          isRetryable: false,
        });
      config.setCurrentContext(connection.context);
    }
  }
  if (!config.getCurrentCluster())
    throw new UpstreamError("the kubeconfig names no cluster for its current context (connection.context)", {
      isRetryable: false,
    });
  return {
    batch: config.makeApiClient(module.BatchV1Api),
    core: config.makeApiClient(module.CoreV1Api),
    watch: new module.Watch(config),
    module,
    secrets: () => credentialsOf(config, inCluster),
  };
}

function kubeconfigPath(connection: ResolvedKubernetesConfig["connection"], environment: Environment): string {
  if (connection.kubeconfig !== undefined) return connection.kubeconfig;
  // KUBECONFIG may list several files, as kubectl merges them; the first one is the one read here.
  const listed = environment["KUBECONFIG"]?.split(":").find((path) => path !== "");
  if (listed !== undefined) return listed;
  return join(environment["HOME"] ?? homedir(), ".kube", "config");
}

/** What of the current user must never be shown: the core redacts each of these from every answer. */
function credentialsOf(config: KubeConfig, inCluster: boolean): string[] {
  const user = config.getCurrentUser();
  const found: Array<string | undefined> = [user?.token, user?.password, user?.keyData, user?.certData];
  if (user?.keyData) found.push(Buffer.from(user.keyData, "base64").toString("utf8"));
  if (user?.keyFile) found.push(readQuietly(user.keyFile));
  const tokenFile = inCluster
    ? serviceAccountTokenFile
    : (user?.authProvider?.config?.["tokenFile"] as string | undefined);
  if (tokenFile) found.push(readQuietly(tokenFile)?.trim());
  return found.filter((value): value is string => typeof value === "string" && value.length >= 6);
}

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
