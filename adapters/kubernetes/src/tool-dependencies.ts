import type { JobWatches } from "./job-watches.js";
import type { KubernetesApi } from "./kubernetes-api.js";
import type { ResolvedKubernetesConfig } from "./kubernetes-options.js";

/** What every tool needs: the API, the watches its Jobs are followed by, and the options. */
export interface ToolDependencies {
  api: KubernetesApi;
  watches: JobWatches;
  config: ResolvedKubernetesConfig;
}
