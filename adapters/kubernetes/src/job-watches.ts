import type { AdapterLoggerV1 } from "@jobtasks/core";
import type { KubernetesApi } from "./kubernetes-api.js";
import {
  NamespaceJobWatch,
  type JobChangeListener,
  type WatchSettings,
  type WatchStatistics,
} from "./namespace-job-watch.js";

/** The watches of one adapter, one per namespace it has Jobs in, each started at the first need. */
export class JobWatches {
  readonly #api: KubernetesApi;
  readonly #settings: WatchSettings;
  readonly #watches = new Map<string, NamespaceJobWatch>();
  #onChange: JobChangeListener | undefined;

  constructor(api: KubernetesApi, settings: WatchSettings) {
    this.#api = api;
    this.#settings = settings;
  }

  /** The namespace's watch; a new one logs through the logger of the call that needed it first. */
  of(namespace: string, logger?: AdapterLoggerV1): NamespaceJobWatch {
    let watch = this.#watches.get(namespace);
    if (!watch) {
      watch = new NamespaceJobWatch(this.#api, namespace, this.#settings, logger, (namespace, job) =>
        this.#onChange?.(namespace, job),
      );
      this.#watches.set(namespace, watch);
      watch.start();
    }
    return watch;
  }

  /** Tell `listener` of every change the watches see to a Job that reads asked for. */
  onChange(listener: JobChangeListener): void {
    this.#onChange = listener;
  }

  /** What every watch cost, summed (benchmarks, tests). */
  statistics(): WatchStatistics & { namespaces: number } {
    const total = { lists: 0, watchRequests: 0, relistsAfterGone: 0, events: 0, bookmarks: 0, failures: 0 };
    for (const watch of this.#watches.values())
      for (const key of Object.keys(total) as Array<keyof WatchStatistics>) total[key] += watch.statistics[key];
    return { ...total, namespaces: this.#watches.size };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#watches.values()].map((watch) => watch.stop()));
    this.#watches.clear();
  }
}
