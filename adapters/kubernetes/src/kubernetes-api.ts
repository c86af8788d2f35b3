import { JobNotFoundError, UpstreamError } from "@jobtasks/core";
import { mayHaveActed } from "@jobtasks/core/adapter-utils";
import { requestNeverSent } from "@jobtasks/core";
import type { CoreV1Event, V1Job, V1Pod } from "@kubernetes/client-node";
import type { JobRef } from "./job-ref.js";
import { httpStatusOf, toUpstreamError, type Attempt } from "./kubernetes-errors.js";
import { createKubernetesClient, type Environment, type KubernetesClient } from "./kubernetes-client.js";
import type { ResolvedKubernetesConfig } from "./kubernetes-options.js";

/**
 * Every call the adapter makes to the Kubernetes API, one typed method each, on @kubernetes/client-node.
 * The client is built at the first call (kubernetes-client.ts). Every failure becomes an UpstreamError
 * that names the verb and the namespace; a Job the API no longer has is a JobNotFoundError.
 */

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR" | string;
  object: V1Job & { code?: number; metadata?: V1Job["metadata"] };
}

export interface KubernetesApi {
  readonly actor: string;
  createJob(namespace: string, body: V1Job): Promise<V1Job>;
  /** The Jobs carrying a label value (how a lost create's Job is found again). */
  findJobsByLabel(namespace: string, selector: string, signal: AbortSignal): Promise<V1Job[]>;
  readJob(namespace: string, name: string, signal: AbortSignal): Promise<V1Job>;
  listJobs(namespace: string, signal: AbortSignal): Promise<{ items: V1Job[]; resourceVersion: string }>;
  /**
   * Watch a namespace's Jobs from a resourceVersion. Resolves once the API answered 200 (the watch runs)
   * or rejects with the refusal; `done` is called once when a running watch ends, with its error if any.
   */
  watchJobs(
    namespace: string,
    resourceVersion: string,
    timeoutSeconds: number,
    onEvent: (event: WatchEvent) => void,
    done: (error: unknown) => void,
  ): Promise<{ stop(): void }>;
  /** Delete with propagation Background (its pods go too), only if it is still this uid. */
  deleteJob(ref: JobRef, signal: AbortSignal): Promise<"deleted" | "gone">;
  /** A JSON patch applied only if the Job is still this uid (a `test` of /metadata/uid comes first). */
  patchJob(ref: JobRef, operations: object[], signal: AbortSignal): Promise<V1Job>;
  listPods(namespace: string, jobUid: string, signal: AbortSignal): Promise<V1Pod[]>;
  readPodLog(
    namespace: string,
    pod: string,
    options: { container?: string; tailLines: number; limitBytes: number },
    signal: AbortSignal,
  ): Promise<string>;
  listJobEvents(namespace: string, jobUid: string, signal: AbortSignal): Promise<CoreV1Event[]>;
  /** The credentials in use, once the client is built (none before). */
  secrets(): string[];
}

export function createKubernetesApi(
  connection: ResolvedKubernetesConfig["connection"],
  environment: Environment,
  requestTimeoutMs: number,
): KubernetesApi {
  let building: Promise<KubernetesClient> | undefined;
  let built: KubernetesClient | undefined;
  const client = () => {
    building ??= createKubernetesClient(connection, environment).then(
      (value) => (built = value),
      (error: unknown) => {
        building = undefined;
        throw error;
      },
    );
    return building;
  };
  const inCluster =
    connection.mode === "in-cluster" || (connection.mode === "auto" && Boolean(environment["KUBERNETES_SERVICE_HOST"]));
  const actor = inCluster ? "the service account" : "the kubeconfig user";
  const attempt = (verb: Attempt["verb"], resource: string, namespace: string): Attempt => ({
    verb,
    resource,
    namespace,
    actor,
  });
  /**
   * Per-request options: the caller's signal joined to the request deadline, set by a middleware. The
   * client's per-call middleware is its Observable kind, whose results it reads with toPromise().
   */
  const options = (signal: AbortSignal) => {
    const combined = AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]);
    const settled = <T>(value: T) => ({ toPromise: () => Promise.resolve(value) });
    return {
      middleware: [
        {
          pre: (context: { setSignal(signal: AbortSignal): void }) => {
            context.setSignal(combined);
            return settled(context);
          },
          post: <T>(response: T) => settled(response),
        },
      ],
      middlewareMergeStrategy: "append" as const,
    };
  };
  /** Run a call; a caller who left gets its own reason back, not an outage. */
  const call = async <T>(what: Attempt, signal: AbortSignal, run: (client: KubernetesClient) => Promise<T>) => {
    signal.throwIfAborted();
    const ready = await client();
    try {
      return await run(ready);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw toUpstreamError(error, what);
    }
  };
  const never = new AbortController().signal;

  return {
    actor,
    async createJob(namespace, body) {
      const what = attempt("create", "jobs", namespace);
      const ready = await client();
      try {
        // Not cut short by the caller: once sent, the Job may exist (the tool finds it by its start label).
        return await ready.batch.createNamespacedJob({ namespace, body }, options(never) as never);
      } catch (error) {
        const status = httpStatusOf(error);
        if ((status === undefined && !requestNeverSent(error)) || (status !== undefined && status >= 500))
          throw mayHaveActed(`creating a Job in namespace ${namespace} got no usable answer`, {
            httpStatus: status,
            cause: toUpstreamError(error, what),
          });
        throw toUpstreamError(error, what);
      }
    },
    findJobsByLabel: (namespace, selector, signal) =>
      call(attempt("list", "jobs", namespace), signal, async (ready) => {
        const list = await ready.batch.listNamespacedJob(
          { namespace, labelSelector: selector },
          options(signal) as never,
        );
        return list.items;
      }),
    async readJob(namespace, name, signal) {
      try {
        return await call(attempt("get", "jobs", namespace), signal, (ready) =>
          ready.batch.readNamespacedJob({ namespace, name }, options(signal) as never),
        );
      } catch (error) {
        if (error instanceof UpstreamError && error.httpStatus === 404)
          throw new JobNotFoundError(`no Job ${name} in namespace ${namespace}`, { cause: error });
        throw error;
      }
    },
    listJobs: (namespace, signal) =>
      call(attempt("list", "jobs", namespace), signal, async (ready) => {
        const items: V1Job[] = [];
        let continueToken: string | undefined;
        let resourceVersion = "";
        do {
          const page = await ready.batch.listNamespacedJob(
            { namespace, limit: 500, ...(continueToken ? { _continue: continueToken } : {}) },
            options(signal) as never,
          );
          items.push(...page.items);
          continueToken = page.metadata?._continue || undefined;
          resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
        } while (continueToken);
        return { items, resourceVersion };
      }),
    async watchJobs(namespace, resourceVersion, timeoutSeconds, onEvent, done) {
      const ready = await client();
      let settled = false;
      let started!: (value: { stop(): void }) => void;
      let refused!: (error: unknown) => void;
      const running = new Promise<{ stop(): void }>((resolve, reject) => {
        started = resolve;
        refused = reject;
      });
      const what = attempt("watch", "jobs", namespace);
      const controller = await ready.watch
        .watch(
          `/apis/batch/v1/namespaces/${encodeURIComponent(namespace)}/jobs`,
          { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
          (type, object) => onEvent({ type, object }),
          (error: unknown) => {
            if (!settled) {
              settled = true;
              refused(error ? toUpstreamError(error, what) : new UpstreamError("the watch closed at once"));
              return;
            }
            done(error ? toUpstreamError(error, what) : undefined);
          },
        )
        .catch((error: unknown) => {
          if (!settled) {
            settled = true;
            refused(toUpstreamError(error, what));
          }
          return undefined;
        });
      if (!settled && controller) {
        settled = true;
        started({ stop: () => controller.abort() });
      }
      return running;
    },
    async deleteJob(ref, signal) {
      try {
        await call(attempt("delete", "jobs", ref.namespace), signal, (ready) =>
          ready.batch.deleteNamespacedJob(
            {
              namespace: ref.namespace,
              name: ref.name,
              propagationPolicy: "Background",
              body: { preconditions: { uid: ref.uid }, propagationPolicy: "Background" },
            },
            options(signal) as never,
          ),
        );
        return "deleted";
      } catch (error) {
        // Gone already, or the name now belongs to another Job (the uid precondition failed): nothing of ours to delete.
        if (error instanceof UpstreamError && (error.httpStatus === 404 || error.httpStatus === 409)) return "gone";
        throw error;
      }
    },
    patchJob: (ref, operations, signal) =>
      call(attempt("patch", "jobs", ref.namespace), signal, (ready) =>
        ready.batch.patchNamespacedJob(
          {
            namespace: ref.namespace,
            name: ref.name,
            body: [{ op: "test", path: "/metadata/uid", value: ref.uid }, ...operations],
          },
          options(signal) as never,
        ),
      ),
    listPods: (namespace, jobUid, signal) =>
      call(attempt("list", "pods", namespace), signal, async (ready) => {
        const list = await ready.core.listNamespacedPod(
          { namespace, labelSelector: `batch.kubernetes.io/controller-uid=${jobUid}` },
          options(signal) as never,
        );
        return list.items;
      }),
    readPodLog: (namespace, pod, logOptions, signal) =>
      call(attempt("get", "pods/log", namespace), signal, (ready) =>
        ready.core.readNamespacedPodLog(
          {
            namespace,
            name: pod,
            tailLines: logOptions.tailLines,
            limitBytes: logOptions.limitBytes,
            ...(logOptions.container ? { container: logOptions.container } : {}),
          },
          options(signal) as never,
        ),
      ),
    listJobEvents: (namespace, jobUid, signal) =>
      call(attempt("list", "events", namespace), signal, async (ready) => {
        const list = await ready.core.listNamespacedEvent(
          { namespace, fieldSelector: `involvedObject.uid=${jobUid}` },
          options(signal) as never,
        );
        return list.items;
      }),
    secrets: () => built?.secrets() ?? [],
  };
}
